# Correction history: the static evaluation's systematic error, learnt per pawn structure.
#
# An evaluation errs the same way in positions of the same kind; the net's errors follow the
# pawn structure it learnt from.  After each node whose search settled its score (no capture or
# promotion as the best move, not in check, a bound that says which way the evaluation was
# wrong), the difference between the search's score and the raw static evaluation is blended into
# an entry chosen by the side to move and a hash of both sides' pawns; the static evaluation
# that pruning decisions read is the raw one plus that entry.  The table is the thread's own
# (SearchState.correction), kept across moves and cleared by `ucinewgame`; the transposition
# table keeps raw evaluations, since corrections change as the game goes on.

from libc.stdint cimport uint64_t
from search.board.types cimport WHITE, BLACK, PAWN
from search.board.board cimport Board, pieces_of
from search.state cimport SearchState, CORRECTION_SIZE, CORRECTION_GRAIN


cdef inline int pawn_structure_index(const Board* b) noexcept nogil:
    """The entry of the board's pawns: both pawn sets mixed by multiplication, the top bits kept."""
    cdef uint64_t h = (pieces_of(b, WHITE, PAWN) * <uint64_t>0x9E3779B97F4A7C15ULL) ^ (
        pieces_of(b, BLACK, PAWN) * <uint64_t>0xC2B2AE3D27D4EB4FULL)
    h ^= h >> 31
    h *= <uint64_t>0xBF58476D1CE4E5B9ULL
    return <int>(h >> 50)      # 14 bits: CORRECTION_SIZE entries


cdef inline int corrected_eval(const SearchState* s, int raw_eval) noexcept nogil:
    """The static evaluation with the thread's learnt correction for this pawn structure."""
    if not s.config.correction_history:
        return raw_eval
    return raw_eval + s.correction[s.board.side_to_move][pawn_structure_index(&s.board)] // CORRECTION_GRAIN


cdef inline void update_correction(SearchState* s, int depth, int searched, int raw_eval) noexcept nogil:
    """Blend what a search of `depth` found (`searched` against the raw evaluation) into the entry:
    deeper searches weigh more, up to correction_weight_max of 256; the entry stays within
    +-correction_limit centipawns."""
    cdef int* entry = &s.correction[s.board.side_to_move][pawn_structure_index(&s.board)]
    cdef int weight = depth + 1 if depth + 1 < s.params.correction_weight_max else s.params.correction_weight_max
    cdef int limit = s.params.correction_limit * CORRECTION_GRAIN
    cdef int value = (entry[0] * (256 - weight) + (searched - raw_eval) * CORRECTION_GRAIN * weight) // 256
    entry[0] = limit if value > limit else (-limit if value < -limit else value)
