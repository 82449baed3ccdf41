# Move ordering: the hash move, then good captures (MVV-LVA, SEE >= 0) and
# promotions, killers and the counter move, quiet moves by history (from-to and continuation
# history: what followed the last two moves), bad captures last.  Captures are ranked by
# MVV-LVA plus their capture history.

from search.board.types cimport Move, MoveList
from search.state cimport SearchState

cdef void score_moves(SearchState* s, MoveList* moves, Move hash_move, int ply) noexcept nogil
cdef void score_captures(SearchState* s, MoveList* moves, Move hash_move) noexcept nogil
# Swap the best remaining move into place `index` and return it (selection sort, lazily).
cdef Move pick_next(MoveList* moves, int index) noexcept nogil
# move_stack[ply] = m, and its piece-to index for continuation history (call before do_move).
cdef void record_move(SearchState* s, int ply, Move m) noexcept nogil
# What followed the moves 1 and 2 plies before `ply` says of quiet move `m` (0 when switched off).
cdef int continuation_score(SearchState* s, Move m, int ply) noexcept nogil
cdef bint is_capture(SearchState* s, Move m) noexcept nogil
# A beta cutoff: reward `best` if it is a capture (MOVE_NONE: it was quiet), punish the
# captures tried before it.
cdef void update_capture_stats(SearchState* s, Move best, Move* captures_tried, int capture_count,
                               int depth) noexcept nogil
cdef void update_quiet_stats(SearchState* s, Move best, Move* quiets_tried, int quiet_count,
                             int depth, int ply) noexcept nogil
