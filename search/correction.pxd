# Static-evaluation correction history, keyed by the pawn structure.
#
# The static evaluation is wrong in ways that repeat: a pawn structure it misjudges is
# misjudged in every position that has it.  After a search, the gap between its result
# and the static evaluation is folded into a moving average for the side to move and a
# hash of the pawns; the next static evaluation of a position with those pawns adds it.
# Pruning margins (reverse futility, futility, null move, razoring) then start from a
# better guess.  Only results that say something about the static evaluation are used:
# not in check, a quiet best move (or none), and a bound that points the same way as
# the gap.  Inline, for the hot path; the table lives in SearchState.correction.

from libc.stdint cimport uint64_t
from search.board.types cimport WHITE, BLACK, PAWN
from search.board.board cimport Board
from search.state cimport (
    SearchState, CORRECTION_SIZE, CORRECTION_GRAIN, CORRECTION_WEIGHT_SCALE, CORRECTION_MAX_WEIGHT,
    CORRECTION_LIMIT,
)


cdef inline uint64_t pawn_hash(const Board* b) noexcept nogil:
    """A hash of where each side's pawns stand (a 64-bit mix of both pawn bitboards)."""
    cdef uint64_t x = ((b.by_type[PAWN] & b.by_colour[WHITE]) * <uint64_t>0x9E3779B97F4A7C15ULL
                       ^ (b.by_type[PAWN] & b.by_colour[BLACK]))
    x ^= x >> 31
    x *= <uint64_t>0xBF58476D1CE4E5B9ULL
    x ^= x >> 29
    return x


cdef inline int* correction_entry(SearchState* s) noexcept nogil:
    return &s.correction[s.board.side_to_move][pawn_hash(&s.board) & (CORRECTION_SIZE - 1)]


cdef inline int corrected_eval(SearchState* s, int raw_eval) noexcept nogil:
    """The static evaluation plus what searches of this pawn structure found it was missing."""
    if not s.config.correction_history:
        return raw_eval
    return raw_eval + correction_entry(s)[0] // CORRECTION_GRAIN


cdef inline void update_correction(SearchState* s, int depth, int gap) noexcept nogil:
    """Fold `gap` (search result - static eval, centipawns) into the average, weight by depth."""
    cdef int* entry = correction_entry(s)
    cdef int weight = depth + 1 if depth + 1 < CORRECTION_MAX_WEIGHT else CORRECTION_MAX_WEIGHT
    cdef int target
    if gap > CORRECTION_LIMIT:
        gap = CORRECTION_LIMIT
    elif gap < -CORRECTION_LIMIT:
        gap = -CORRECTION_LIMIT
    target = gap * CORRECTION_GRAIN
    entry[0] = (entry[0] * (CORRECTION_WEIGHT_SCALE - weight) + target * weight) // CORRECTION_WEIGHT_SCALE
