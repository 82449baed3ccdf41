# The terminal test of the rules for searchers: draws by repetition, the 50-move rule
# and insufficient material (mate and stalemate show as an empty move list).

from search.board.board cimport Board, is_draw_by_repetition, is_insufficient_material
from search.board.movegen cimport has_legal_move


# The one draw test of every searcher.  `fifty_move_rule` False leaves the 50-move rule out:
# quiescence does so (as before the test was shared), since the change has not been
# measured in games yet.
cdef inline bint is_draw_by_rule(Board* b, int ply_from_root, bint fifty_move_rule=True) noexcept nogil:
    if is_draw_by_repetition(b, ply_from_root) or is_insufficient_material(b):
        return True
    # At 100 half-moves the game is drawn, unless the last move mated.
    return fifty_move_rule and b.halfmove_clock >= 100 and (not b.checkers or has_legal_move(b))
