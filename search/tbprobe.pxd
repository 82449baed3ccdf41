# Syzygy WDL probes inside the alpha-beta tree.
#
# Kestrel has no C reader of the Syzygy files: a probe calls back into Python (the
# prober the UCI front hands over, python-chess's chess.syzygy behind it) with the GIL.
# That costs tens of microseconds, so probes are kept to the positions where they pay
# most and happen least: right after a capture or a pawn move (the 50-move counter at
# zero, as the tables assume), without castling rights, with at most `max_pieces` men,
# at a remaining depth of at least `probe_depth` (UCI's SyzygyProbeDepth).  A result cuts
# the subtree and is stored in the transposition table, so each position is probed once.

from libc.stdint cimport uint64_t
from search.board.board cimport Board

cdef enum:
    TB_NO_RESULT = 3       # not in the tables, or the prober failed: search on
    VALUE_TB_WIN = 20000   # a tablebase win, less the ply it is found at (below mate scores)

cdef struct TablebaseProbing:
    void* prober           # a Python callable fen -> wdl (-2..2, the 50-move rule applied) or None; NULL: off
    int probe_depth        # probe at this remaining depth or more
    int max_pieces         # probe positions with at most this many men
    uint64_t hits          # successful probes in this search (per thread)

# True when `b` may be probed at this remaining depth (cheap tests first).
cdef bint should_probe(const TablebaseProbing* tb, const Board* b, int depth) noexcept nogil
# The tables' WDL for the side to move (-2..2), or TB_NO_RESULT.  Takes the GIL.
cdef int probe_wdl(TablebaseProbing* tb, const Board* b) noexcept nogil
