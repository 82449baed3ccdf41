"""Syzygy WDL probes from the search, through a Python prober (see tbprobe.pxd)."""

from search.board.board cimport get_fen
from search.board.bitboard cimport popcount


cdef bint should_probe(const TablebaseProbing* tb, const Board* b, int depth) noexcept nogil:
    return (tb.prober != NULL and b.halfmove_clock == 0 and b.castling == 0 and depth >= tb.probe_depth
            and popcount(b.occupied) <= tb.max_pieces)


cdef int probe_wdl(TablebaseProbing* tb, const Board* b) noexcept nogil:
    cdef int wdl = TB_NO_RESULT
    with gil:
        try:
            result = (<object>tb.prober)(get_fen(b))
            if result is not None and -2 <= result <= 2:
                wdl = result
        except BaseException:
            # A damaged table must not stop the search: this position is searched instead.
            wdl = TB_NO_RESULT
    if wdl != TB_NO_RESULT:
        tb.hits += 1
    return wdl
