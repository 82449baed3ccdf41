# Move ordering: the hash move, then good captures (MVV-LVA, SEE >= 0) and
# promotions, killers and the counter move, quiet moves by history, bad captures last.

from search.board.types cimport (
    Move, MoveList, PAWN, MOVE_EN_PASSANT, move_from, move_to, move_kind, piece_type_of,
)
from search.board.board cimport Board
from search.board.see cimport SEE_VALUE
from search.state cimport SearchState

cdef void score_moves(SearchState* s, MoveList* moves, Move hash_move, int ply) noexcept nogil
cdef void score_captures(SearchState* s, MoveList* moves, Move hash_move) noexcept nogil
# Swap the best remaining move into place `index` and return it (selection sort, lazily).
cdef Move pick_next(MoveList* moves, int index) noexcept nogil
cdef bint is_capture(SearchState* s, Move m) noexcept nogil
cdef void update_quiet_stats(SearchState* s, Move best, Move* quiets_tried, int quiet_count,
                             int depth, int ply) noexcept nogil


cdef inline void record_move(SearchState* s, int ply, Move m) noexcept nogil:
    """move_stack[ply] = m (the counter move and the null-move rule read it; call before do_move)."""
    s.move_stack[ply] = m


cdef inline int mvv_lva(const Board* b, Move m) noexcept nogil:
    """A capture's order among captures: the most valuable victim first, then the least valuable attacker.
    Both searchers order captures by it (alpha-beta's good and bad captures, MCTS's expansion)."""
    cdef int victim = PAWN if move_kind(m) == MOVE_EN_PASSANT else piece_type_of(b.squares[move_to(m)])
    return SEE_VALUE[victim] * 8 - SEE_VALUE[piece_type_of(b.squares[move_from(m)])] // 100
