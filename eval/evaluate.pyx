"""The weighted, tapered evaluation in C, and the loader of its weights.

The weights of ``eval/weights.py`` are copied into one C struct at import; ``load_weights``
replaces them (for a tuner).  Do not reload weights while a search runs: the searchers read
the struct without a lock.

Each term is summed per side, set-wise on bitboards where it can be (pawn structure by file
fills, mobility by attack lookups and popcount), so no state is kept between calls.
"""

from search.board.types cimport (
    Bitboard, WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING,
)
from search.board.bitboard cimport (
    popcount, lsb, pop_lsb, square_bb, rook_attacks, bishop_attacks, queen_attacks,
    KNIGHT_ATTACKS, KING_ATTACKS, FILE_A, FILE_H, DARK_SQUARES,
)
from search.board.board cimport Board, pieces_of

from typing import Any, Dict, List, Sequence

from eval import weights as weight_table

cdef enum:
    MAX_MOBILITY = 28       # a queen attacks at most 27 squares
    MAX_KING_DANGER = 256

cdef struct EvalWeights:
    int material_mg[6]
    int material_eg[6]
    int psqt_mg[6][64]          # by piece type and square from White's view (a1 = 0)
    int psqt_eg[6][64]
    int mobility_mg[6][MAX_MOBILITY]    # rows KNIGHT..QUEEN used
    int mobility_eg[6][MAX_MOBILITY]
    int passed_mg[8]            # by the pawn's rank from its own side
    int passed_eg[8]
    int isolated_mg
    int isolated_eg
    int doubled_mg
    int doubled_eg
    int bishop_pair_mg
    int bishop_pair_eg
    int rook_open_mg
    int rook_open_eg
    int rook_semi_open_mg
    int rook_semi_open_eg
    int king_shield_near
    int king_shield_far
    int king_open_file
    int king_attack_units[6]
    int king_danger[MAX_KING_DANGER]
    int king_danger_last        # attack units beyond this index use the last entry
    int tempo_mg
    int tempo_eg

cdef EvalWeights W

# Masks filled once at import.
cdef Bitboard FILE_BB[8]
cdef Bitboard SHIELD_NEAR[2][64]    # own pawn squares one rank ahead of a king on a wing, files around it
cdef Bitboard SHIELD_FAR[2][64]     # two ranks ahead; both empty for a king on the d or e file


cdef void init_masks():
    cdef int colour, square, f, r, step, df
    for f in range(8):
        FILE_BB[f] = FILE_A << f
    for colour in range(2):
        step = 1 if colour == WHITE else -1
        for square in range(64):
            f = square & 7
            r = square >> 3
            SHIELD_NEAR[colour][square] = 0
            SHIELD_FAR[colour][square] = 0
            if f == 3 or f == 4:
                # A king in the centre has not castled yet: moving the centre pawns is not
                # a weakness, and leaving the shield bonus to castled kings rewards castling.
                continue
            for df in range(-1, 2):
                if f + df < 0 or f + df > 7:
                    continue
                if 0 <= r + step <= 7:
                    SHIELD_NEAR[colour][square] |= square_bb((r + step) * 8 + f + df)
                if 0 <= r + 2 * step <= 7:
                    SHIELD_FAR[colour][square] |= square_bb((r + 2 * step) * 8 + f + df)


# ---------------------------------------------------------------- set-wise helpers

cdef inline Bitboard fill_north(Bitboard b) noexcept nogil:
    b |= b << 8
    b |= b << 16
    b |= b << 32
    return b

cdef inline Bitboard fill_south(Bitboard b) noexcept nogil:
    b |= b >> 8
    b |= b >> 16
    b |= b >> 32
    return b

cdef inline Bitboard neighbour_files(Bitboard b) noexcept nogil:
    """The squares beside `b` on the files to the left and right."""
    return ((b & ~FILE_H) << 1) | ((b & ~FILE_A) >> 1)


# ---------------------------------------------------------------- the terms

cdef inline void add_term(EvalTerms* t, int term, int sign, int mg, int eg) noexcept nogil:
    t.mg[term] += sign * mg
    t.eg[term] += sign * eg


cdef void pawn_structure(const Board* b, int us, EvalTerms* t) noexcept nogil:
    """Passed, isolated and doubled pawns of one side."""
    cdef int sign = 1 - 2 * us
    cdef Bitboard ours = pieces_of(b, us, PAWN)
    cdef Bitboard theirs = pieces_of(b, 1 - us, PAWN)
    cdef Bitboard stoppers, behind_own, passed
    cdef int mg = 0, eg = 0, n, rank
    if ours == 0:
        return
    # A pawn is stopped by an enemy pawn ahead of it on its own or a neighbouring file; a pawn
    # with an own pawn ahead on its file is not the passer of that file.
    if us == WHITE:
        stoppers = fill_south(theirs >> 8)
        behind_own = ours & fill_south(ours >> 8)
    else:
        stoppers = fill_north(theirs << 8)
        behind_own = ours & fill_north(ours << 8)
    stoppers |= neighbour_files(stoppers)
    passed = ours & ~stoppers & ~behind_own
    while passed:
        rank = (pop_lsb(&passed) >> 3) ^ (7 * us)
        mg += W.passed_mg[rank]
        eg += W.passed_eg[rank]
    # Isolated: no own pawn on a neighbouring file (files found by filling both ways).
    n = popcount(ours & ~neighbour_files(fill_north(fill_south(ours))))
    mg += n * W.isolated_mg
    eg += n * W.isolated_eg
    # Doubled: every pawn with an own pawn below it on its file is one extra pawn.
    n = popcount(ours & fill_north(ours << 8))
    mg += n * W.doubled_mg
    eg += n * W.doubled_eg
    add_term(t, TERM_PAWNS, sign, mg, eg)


cdef void evaluate_side(const Board* b, int us, EvalTerms* t) noexcept nogil:
    """Add one side's material, tables, mobility, rooks, bishop pair and king safety."""
    cdef int them = 1 - us
    cdef int sign = 1 - 2 * us
    cdef int flip = 56 * us     # Black reads White's tables upside down
    cdef Bitboard occupied = b.occupied
    cdef Bitboard own = b.by_colour[us]
    cdef Bitboard our_pawns = pieces_of(b, us, PAWN)
    cdef Bitboard all_pawns = b.by_type[PAWN]
    cdef Bitboard their_king = pieces_of(b, them, KING)
    cdef Bitboard king_zone = 0
    cdef Bitboard bb, attacks, file_bb
    cdef int mat_mg = 0, mat_eg = 0, psq_mg = 0, psq_eg = 0
    cdef int mob_mg = 0, mob_eg = 0, rook_mg = 0, rook_eg = 0, king_mg = 0
    cdef int attackers = 0, units = 0
    cdef int pt, sq, n, count
    if their_king:
        king_zone = KING_ATTACKS[lsb(their_king)] | their_king

    for pt in range(PAWN, KING):
        bb = pieces_of(b, us, pt)
        n = popcount(bb)
        mat_mg += n * W.material_mg[pt]
        mat_eg += n * W.material_eg[pt]
        while bb:
            sq = pop_lsb(&bb)
            psq_mg += W.psqt_mg[pt][sq ^ flip]
            psq_eg += W.psqt_eg[pt][sq ^ flip]
            if pt == PAWN:
                continue
            if pt == KNIGHT:
                attacks = KNIGHT_ATTACKS[sq]
            elif pt == BISHOP:
                attacks = bishop_attacks(sq, occupied)
            elif pt == ROOK:
                attacks = rook_attacks(sq, occupied)
                file_bb = FILE_BB[sq & 7]
                if (file_bb & all_pawns) == 0:
                    rook_mg += W.rook_open_mg
                    rook_eg += W.rook_open_eg
                elif (file_bb & our_pawns) == 0:
                    rook_mg += W.rook_semi_open_mg
                    rook_eg += W.rook_semi_open_eg
            else:
                attacks = queen_attacks(sq, occupied)
            count = popcount(attacks & ~own)
            mob_mg += W.mobility_mg[pt][count]
            mob_eg += W.mobility_eg[pt][count]
            if attacks & king_zone:
                attackers += 1
                units += W.king_attack_units[pt] * popcount(attacks & king_zone)

    bb = pieces_of(b, us, KING)
    if bb:
        sq = lsb(bb)
        psq_mg += W.psqt_mg[KING][sq ^ flip]
        psq_eg += W.psqt_eg[KING][sq ^ flip]
        king_mg += (W.king_shield_near * popcount(our_pawns & SHIELD_NEAR[us][sq])
                    + W.king_shield_far * popcount(our_pawns & SHIELD_FAR[us][sq]))
        if (our_pawns & FILE_BB[sq & 7]) == 0:
            king_mg += W.king_open_file
    # One piece near the king is routine; danger starts with two (the King Safety page's rule).
    if attackers >= 2:
        king_mg += W.king_danger[units if units < W.king_danger_last else W.king_danger_last]

    bb = pieces_of(b, us, BISHOP)
    if (bb & DARK_SQUARES) and (bb & ~DARK_SQUARES):
        add_term(t, TERM_BISHOP_PAIR, sign, W.bishop_pair_mg, W.bishop_pair_eg)

    add_term(t, TERM_MATERIAL, sign, mat_mg, mat_eg)
    add_term(t, TERM_PSQT, sign, psq_mg, psq_eg)
    add_term(t, TERM_MOBILITY, sign, mob_mg, mob_eg)
    add_term(t, TERM_ROOKS, sign, rook_mg, rook_eg)
    add_term(t, TERM_KING_SAFETY, sign, king_mg, 0)
    pawn_structure(b, us, t)


cdef void evaluate_terms(const Board* b, EvalTerms* t) noexcept nogil:
    cdef int i, mg = 0, eg = 0, score, phase
    for i in range(TERM_COUNT):
        t.mg[i] = 0
        t.eg[i] = 0
    evaluate_side(b, WHITE, t)
    evaluate_side(b, BLACK, t)
    if b.side_to_move == WHITE:
        add_term(t, TERM_TEMPO, 1, W.tempo_mg, W.tempo_eg)
    else:
        add_term(t, TERM_TEMPO, -1, W.tempo_mg, W.tempo_eg)

    phase = (popcount(b.by_type[KNIGHT] | b.by_type[BISHOP]) + 2 * popcount(b.by_type[ROOK])
             + 4 * popcount(b.by_type[QUEEN]))
    if phase > PHASE_MAX:       # promotions
        phase = PHASE_MAX
    for i in range(TERM_COUNT):
        mg += t.mg[i]
        eg += t.eg[i]
    # C division truncates toward zero, so score(-x) == -score(x): colour symmetry is exact.
    score = (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX
    if b.side_to_move == BLACK:
        score = -score
    if score > EVAL_LIMIT:
        score = EVAL_LIMIT
    elif score < -EVAL_LIMIT:
        score = -EVAL_LIMIT
    t.phase = phase
    t.total = score


cdef int evaluate(const Board* b) noexcept nogil:
    cdef EvalTerms t
    evaluate_terms(b, &t)
    return t.total


# ---------------------------------------------------------------- loading weights

_loaded: Dict[str, Any] = {}


def _pair(weights: Dict[str, Any], name: str) -> tuple:
    value = weights[name]
    if len(value) != 2:
        raise ValueError(f"{name} must be an (mg, eg) pair")
    return int(value[0]), int(value[1])


def _ints(values: Sequence[int], length: int, name: str) -> List[int]:
    if len(values) != length:
        raise ValueError(f"{name} must have {length} entries, not {len(values)}")
    return [int(v) for v in values]


def _square_table(rows: Sequence[Sequence[int]], name: str) -> List[int]:
    """64 values indexed a1 = 0 from 8 rows written rank 8 first."""
    if len(rows) != 8:
        raise ValueError(f"{name} must have 8 rows")
    table = [0] * 64
    for row_index, row in enumerate(rows):
        for file, value in enumerate(_ints(row, 8, f"{name} row {row_index}")):
            table[(7 - row_index) * 8 + file] = value
    return table


def load_weights(weights: Dict[str, Any]) -> None:
    """Copy a weight table (the shape of ``eval.weights.WEIGHTS``) into the C evaluation.

    The table is checked in full first (KeyError/ValueError), so a bad table leaves the
    loaded weights unchanged.
    """
    cdef EvalWeights w
    cdef int pt, i
    names = weight_table.PIECE_NAMES
    for pt, piece in enumerate(names):
        w.material_mg[pt], w.material_eg[pt] = _pair(weights["material"], piece)
        mg = _square_table(weights["psqt_mg"][piece], f"psqt_mg.{piece}")
        eg = _square_table(weights["psqt_eg"][piece], f"psqt_eg.{piece}")
        for i in range(64):
            w.psqt_mg[pt][i] = mg[i]
            w.psqt_eg[pt][i] = eg[i]
        for i in range(MAX_MOBILITY):
            w.mobility_mg[pt][i] = 0
            w.mobility_eg[pt][i] = 0
        w.king_attack_units[pt] = 0
    for piece in weight_table.MOBILE_PIECES:
        pt = names.index(piece)
        length = weight_table.MOBILITY_COUNTS[piece]
        mg = _ints(weights["mobility_mg"][piece], length, f"mobility_mg.{piece}")
        eg = _ints(weights["mobility_eg"][piece], length, f"mobility_eg.{piece}")
        for i in range(length):
            w.mobility_mg[pt][i] = mg[i]
            w.mobility_eg[pt][i] = eg[i]
        w.king_attack_units[pt] = int(weights["king_attack_units"][piece])
    passed_mg = _ints(weights["passed_pawn_mg"], 8, "passed_pawn_mg")
    passed_eg = _ints(weights["passed_pawn_eg"], 8, "passed_pawn_eg")
    for i in range(8):
        w.passed_mg[i] = passed_mg[i]
        w.passed_eg[i] = passed_eg[i]
    w.isolated_mg, w.isolated_eg = _pair(weights, "isolated_pawn")
    w.doubled_mg, w.doubled_eg = _pair(weights, "doubled_pawn")
    w.bishop_pair_mg, w.bishop_pair_eg = _pair(weights, "bishop_pair")
    w.rook_open_mg, w.rook_open_eg = _pair(weights, "rook_open_file")
    w.rook_semi_open_mg, w.rook_semi_open_eg = _pair(weights, "rook_semi_open_file")
    w.king_shield_near = int(weights["king_shield_near"])
    w.king_shield_far = int(weights["king_shield_far"])
    w.king_open_file = int(weights["king_open_file"])
    danger = [int(v) for v in weights["king_danger"]]
    if not 1 <= len(danger) <= MAX_KING_DANGER:
        raise ValueError(f"king_danger must have 1..{MAX_KING_DANGER} entries")
    for i in range(len(danger)):
        w.king_danger[i] = danger[i]
    w.king_danger_last = len(danger) - 1
    w.tempo_mg, w.tempo_eg = _pair(weights, "tempo")

    global W, _loaded
    W = w
    _loaded = weight_table.from_vector(weight_table.to_vector(weights), weights)


def current_weights() -> Dict[str, Any]:
    """A copy of the weight table in use."""
    return weight_table.from_vector(weight_table.to_vector(_loaded), _loaded)


def weights_as_vector() -> List[int]:
    """The weights in use as a flat list, in the order of ``eval.weights.weight_names()``."""
    return weight_table.to_vector(_loaded)


def load_vector(values: Sequence[int]) -> None:
    """Load a flat list of the starting table's shape (what a tuner produces)."""
    load_weights(weight_table.from_vector(values, weight_table.WEIGHTS))


init_masks()
load_weights(weight_table.default_weights())
