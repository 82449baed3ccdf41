# Correction history: the static evaluation's systematic error, learnt per pawn structure and per
# each side's non-pawn pieces.
#
# An evaluation errs the same way in positions of the same kind.  After a node whose search settled
# which way the static evaluation was wrong (not in check, the best move quiet or none, a fail high
# above the evaluation, a fail low below it, or an exact score), the search's score minus the
# corrected evaluation is added, weighted by depth, to three entries chosen by the side to move:
# one keyed by both sides' pawns, one by White's knights, bishops, rooks, queens and king, one by
# Black's.  The static evaluation pruning and stand pat read is the raw one plus the entries'
# weighted mean.  Each update is a residual, so the entries learn what the correction still
# misses; a gravity term keeps every entry inside +-CORRECTION_LIMIT.  The tables are the thread's
# own (SearchState), kept across moves and cleared by `ucinewgame`; the transposition table keeps
# raw evaluations, since corrections change as the game goes on.

from libc.stdint cimport uint64_t, int16_t
from libc.string cimport memset
from search.board.types cimport WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, MATE_IN_MAX_PLY
from search.board.board cimport Board, pieces_of
from search.state cimport SearchState, CORRECTION_SIZE_BITS


cdef enum:
    CORRECTION_GRAIN = 16          # a centipawn is this many units of an entry
    CORRECTION_LIMIT = 1024        # the largest entry: 64 centipawns
    CORRECTION_PAWN_WEIGHT = 2     # the pawn entry counts twice in the mean, each non-pawn entry once
    CORRECTION_WEIGHTS = CORRECTION_PAWN_WEIGHT + 2


cdef inline uint64_t mix(uint64_t h) noexcept nogil:
    """A 64-bit finaliser: every input bit reaches the top bits the index keeps."""
    h ^= h >> 31
    h *= <uint64_t>0xBF58476D1CE4E5B9ULL
    h ^= h >> 29
    return h


cdef inline int pawn_index(const Board* b) noexcept nogil:
    return <int>(mix((pieces_of(b, WHITE, PAWN) * <uint64_t>0x9E3779B97F4A7C15ULL)
                     ^ (pieces_of(b, BLACK, PAWN) * <uint64_t>0xC2B2AE3D27D4EB4FULL)) >> (64 - CORRECTION_SIZE_BITS))


cdef inline int non_pawn_index(const Board* b, int colour) noexcept nogil:
    return <int>(mix((pieces_of(b, colour, KNIGHT) * <uint64_t>0x9E3779B97F4A7C15ULL)
                     ^ (pieces_of(b, colour, BISHOP) * <uint64_t>0xC2B2AE3D27D4EB4FULL)
                     ^ (pieces_of(b, colour, ROOK) * <uint64_t>0x165667B19E3779F9ULL)
                     ^ (pieces_of(b, colour, QUEEN) * <uint64_t>0xD6E8FEB86659FD93ULL)
                     ^ (pieces_of(b, colour, KING) * <uint64_t>0x94D049BB133111EBULL)) >> (64 - CORRECTION_SIZE_BITS))


cdef inline void clear_corrections(SearchState* s) noexcept nogil:
    """Forget every correction (a new game)."""
    memset(s.pawn_correction, 0, sizeof(s.pawn_correction))
    memset(s.non_pawn_correction, 0, sizeof(s.non_pawn_correction))


cdef inline int corrected_eval(const SearchState* s, int raw_eval) noexcept nogil:
    """The static evaluation plus the thread's learnt correction for this kind of position."""
    cdef const Board* b = &s.board
    cdef int stm = b.side_to_move, value
    if not s.config.correction_history:
        return raw_eval
    value = raw_eval + (CORRECTION_PAWN_WEIGHT * s.pawn_correction[stm][pawn_index(b)]
                        + s.non_pawn_correction[stm][WHITE][non_pawn_index(b, WHITE)]
                        + s.non_pawn_correction[stm][BLACK][non_pawn_index(b, BLACK)]) // (
                            CORRECTION_WEIGHTS * CORRECTION_GRAIN)
    if value >= MATE_IN_MAX_PLY:
        return MATE_IN_MAX_PLY - 1
    return -MATE_IN_MAX_PLY + 1 if value <= -MATE_IN_MAX_PLY else value


cdef inline void add_with_gravity(int16_t* entry, int bonus) noexcept nogil:
    """entry += bonus, less the share of the entry that the bonus's size is of the limit: the
    entry moves toward the bonus's sign and never passes +-CORRECTION_LIMIT."""
    cdef int magnitude = bonus if bonus >= 0 else -bonus
    entry[0] = <int16_t>(entry[0] + bonus - entry[0] * magnitude // CORRECTION_LIMIT)


cdef inline void update_correction(SearchState* s, int depth, int searched, int corrected) noexcept nogil:
    """Learn from a search of `depth` that found `searched` where the corrected evaluation said
    `corrected`: the difference, in grains, times depth / 8, at most a quarter of the limit."""
    cdef const Board* b = &s.board
    cdef int stm = b.side_to_move
    cdef int bonus = (searched - corrected) * CORRECTION_GRAIN * depth // 8
    if bonus > CORRECTION_LIMIT // 4:
        bonus = CORRECTION_LIMIT // 4
    elif bonus < -CORRECTION_LIMIT // 4:
        bonus = -CORRECTION_LIMIT // 4
    add_with_gravity(&s.pawn_correction[stm][pawn_index(b)], bonus)
    add_with_gravity(&s.non_pawn_correction[stm][WHITE][non_pawn_index(b, WHITE)], bonus)
    add_with_gravity(&s.non_pawn_correction[stm][BLACK][non_pawn_index(b, BLACK)], bonus)
