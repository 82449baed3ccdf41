"""The weighted, tapered evaluation in C, and the loader of its weights.

The weights of ``eval/weights.py`` are copied into one C struct at import; ``load_weights``
replaces them (for a tuner).  Do not reload weights while a search runs: the searchers read
the struct without a lock.

Each term is summed per side, set-wise on bitboards where it can be (pawn structure by file
fills, mobility by attack lookups and popcount), so no state is kept between calls.
"""

from search.board.types cimport (
    Bitboard, Move, WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, MOVE_CASTLING,
    move_from, move_to, move_kind, piece_type_of, square_distance,
)
from search.board.bitboard cimport (
    popcount, lsb, pop_lsb, square_bb, rook_attacks, bishop_attacks, queen_attacks, pawn_attacks_bb,
    KNIGHT_ATTACKS, KING_ATTACKS, FILE_A, FILE_H, RANK_1, DARK_SQUARES,
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
    # Threats, from the attacker's side.
    int threat_pawn_mg, threat_pawn_eg          # per enemy piece (not pawn or king) our pawns attack
    int threat_minor_mg, threat_minor_eg        # per enemy rook or queen our knights or bishops attack
    int threat_rook_mg, threat_rook_eg          # per enemy queen our rooks attack
    int hanging_mg, hanging_eg                  # per enemy piece we attack that nothing of theirs defends
    int safe_check[6]                           # mg: per safe square a piece type could check from
    # Pawn structure beyond passed/isolated/doubled.
    int pawn_supported_mg, pawn_supported_eg    # per pawn defended by an own pawn
    int pawn_phalanx_mg, pawn_phalanx_eg        # per pawn with an own pawn beside it
    int backward_mg, backward_eg                # per pawn that no own pawn can support, stop square attacked
    # Passed-pawn details; "per step" weights are multiplied by the passer's rank beyond the third.
    int passed_blocked_mg, passed_blocked_eg
    int passed_supported_mg, passed_supported_eg
    int passed_free_mg, passed_free_eg          # per step: nothing of theirs on or attacking its path
    int passed_king_mg, passed_king_eg          # per step and per square of king distance difference
    int passed_unstoppable_mg, passed_unstoppable_eg   # pawn endings: the enemy king is outside the square
    # Pieces.
    int knight_outpost_mg, knight_outpost_eg
    int bishop_outpost_mg, bishop_outpost_eg
    int rook_seventh_mg, rook_seventh_eg


cdef struct Attacks:
    # The squares each side attacks, by piece type and in all, filled by evaluate_side.
    Bitboard by_type[2][6]
    Bitboard all[2]


cdef EvalWeights W

# Masks filled once at import.
cdef Bitboard FILE_BB[8]
cdef Bitboard RANK_BB[8]
cdef Bitboard SHIELD_NEAR[2][64]    # own pawn squares one rank ahead of a king on a wing, files around it
cdef Bitboard SHIELD_FAR[2][64]     # two ranks ahead; both empty for a king on the d or e file


cdef void init_masks():
    cdef int colour, square, f, r, step, df
    for f in range(8):
        FILE_BB[f] = FILE_A << f
        RANK_BB[f] = RANK_1 << (8 * f)
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

cdef inline Bitboard fill_forward(Bitboard b, int colour) noexcept nogil:
    """`b` and every square ahead of it, as seen by `colour`'s pawns."""
    return fill_north(b) if colour == WHITE else fill_south(b)

cdef inline Bitboard step_forward(Bitboard b, int colour) noexcept nogil:
    return b << 8 if colour == WHITE else b >> 8

cdef inline int min_int(int x, int y) noexcept nogil:
    return x if x < y else y


# ---------------------------------------------------------------- the terms

cdef inline void add_term(EvalTerms* t, int term, int sign, int mg, int eg) noexcept nogil:
    t.mg[term] += sign * mg
    t.eg[term] += sign * eg


cdef Bitboard pawn_structure(const Board* b, int us, EvalTerms* t) noexcept nogil:
    """Passed, isolated, doubled, supported, side-by-side and backward pawns of one side;
    returns the passed pawns."""
    cdef int sign = 1 - 2 * us
    cdef Bitboard ours = pieces_of(b, us, PAWN)
    cdef Bitboard theirs = pieces_of(b, 1 - us, PAWN)
    cdef Bitboard stoppers, behind_own, passed, passers, isolated, supportable, their_pawn_attacks
    cdef int mg = 0, eg = 0, n, rank
    if ours == 0:
        return 0
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
    passers = passed
    while passed:
        rank = (pop_lsb(&passed) >> 3) ^ (7 * us)
        mg += W.passed_mg[rank]
        eg += W.passed_eg[rank]
    # Isolated: no own pawn on a neighbouring file (files found by filling both ways).
    isolated = ours & ~neighbour_files(fill_north(fill_south(ours)))
    n = popcount(isolated)
    mg += n * W.isolated_mg
    eg += n * W.isolated_eg
    # Doubled: every pawn with an own pawn below it on its file is one extra pawn.
    n = popcount(ours & fill_north(ours << 8))
    mg += n * W.doubled_mg
    eg += n * W.doubled_eg
    # Chains and phalanxes: defended by an own pawn, or with one beside it on the rank.
    n = popcount(ours & pawn_attacks_bb(ours, us))
    mg += n * W.pawn_supported_mg
    eg += n * W.pawn_supported_eg
    n = popcount(ours & neighbour_files(ours))
    mg += n * W.pawn_phalanx_mg
    eg += n * W.pawn_phalanx_eg
    # Backward: no own pawn on a neighbouring file level with or behind it (none can come
    # up to defend it), not isolated (that is counted already), and its stop square is
    # attacked by an enemy pawn, so it cannot advance to safety either.
    supportable = neighbour_files(fill_forward(ours, us))
    their_pawn_attacks = pawn_attacks_bb(theirs, 1 - us)
    n = popcount(ours & ~supportable & ~isolated & step_forward(their_pawn_attacks, 1 - us))
    mg += n * W.backward_mg
    eg += n * W.backward_eg
    add_term(t, TERM_PAWNS, sign, mg, eg)
    return passers


cdef void passed_pawn_details(const Board* b, int us, Bitboard passers, const Attacks* a,
                              EvalTerms* t) noexcept nogil:
    """What a passer is worth beyond its rank: blocked or free to run, defended, how near
    each king is to its path, and whether the enemy king can catch it at all."""
    cdef int them = 1 - us, sign = 1 - 2 * us
    cdef int sq, stop, rank, steps, promotion, our_king = -1, their_king = -1, ours_d, theirs_d, king_moves
    cdef Bitboard path, bb
    cdef bint pawn_ending = (b.by_colour[them] & ~b.by_type[PAWN] & ~b.by_type[KING]) == 0
    cdef int mg = 0, eg = 0
    bb = pieces_of(b, us, KING)
    if bb:
        our_king = lsb(bb)
    bb = pieces_of(b, them, KING)
    if bb:
        their_king = lsb(bb)
    while passers:
        sq = pop_lsb(&passers)
        rank = (sq >> 3) ^ (7 * us)
        steps = rank - 2 if rank > 2 else 0
        stop = sq + 8 if us == WHITE else sq - 8
        path = fill_forward(square_bb(stop), us)
        if b.occupied & square_bb(stop):
            mg += W.passed_blocked_mg
            eg += W.passed_blocked_eg
        if a.by_type[us][PAWN] & square_bb(sq):
            mg += W.passed_supported_mg
            eg += W.passed_supported_eg
        if (path & (b.by_colour[them] | a.all[them])) == 0:
            mg += steps * W.passed_free_mg
            eg += steps * W.passed_free_eg
        if our_king >= 0 and their_king >= 0:
            ours_d = square_distance(our_king, stop)
            theirs_d = square_distance(their_king, stop)
            mg += steps * (min_int(theirs_d, 5) - min_int(ours_d, 5)) * W.passed_king_mg
            eg += steps * (min_int(theirs_d, 5) - min_int(ours_d, 5)) * W.passed_king_eg
            if pawn_ending and (path & b.occupied) == 0:
                # The rule of the square: the pawn needs 7 - rank moves (one fewer from its
                # first rank), the king its distance to the promotion square, one fewer on move.
                promotion = (sq & 7) + (56 if us == WHITE else 0)
                king_moves = square_distance(their_king, promotion) - (1 if b.side_to_move == them else 0)
                if min_int(7 - rank, 5) < king_moves:
                    mg += W.passed_unstoppable_mg
                    eg += W.passed_unstoppable_eg
    add_term(t, TERM_PAWNS, sign, mg, eg)


cdef void threats(const Board* b, int us, const Attacks* a, EvalTerms* t) noexcept nogil:
    """Enemy pieces our pawns or lesser pieces attack, hanging pieces, and the safe squares
    from which our pieces could check the enemy king."""
    cdef int them = 1 - us, sign = 1 - 2 * us, n, king_sq
    cdef Bitboard their_pieces = b.by_colour[them] & ~b.by_type[PAWN] & ~b.by_type[KING]
    cdef Bitboard majors = b.by_colour[them] & (b.by_type[ROOK] | b.by_type[QUEEN])
    cdef Bitboard safe, bb
    cdef int mg = 0, eg = 0, checks = 0
    n = popcount(a.by_type[us][PAWN] & their_pieces)
    mg += n * W.threat_pawn_mg
    eg += n * W.threat_pawn_eg
    n = popcount((a.by_type[us][KNIGHT] | a.by_type[us][BISHOP]) & majors)
    mg += n * W.threat_minor_mg
    eg += n * W.threat_minor_eg
    n = popcount(a.by_type[us][ROOK] & b.by_colour[them] & b.by_type[QUEEN])
    mg += n * W.threat_rook_mg
    eg += n * W.threat_rook_eg
    n = popcount(a.all[us] & their_pieces & ~a.all[them])
    mg += n * W.hanging_mg
    eg += n * W.hanging_eg
    add_term(t, TERM_THREATS, sign, mg, eg)
    bb = pieces_of(b, them, KING)
    if bb:
        king_sq = lsb(bb)
        safe = ~a.all[them] & ~b.by_colour[us]
        checks += W.safe_check[KNIGHT] * popcount(KNIGHT_ATTACKS[king_sq] & a.by_type[us][KNIGHT] & safe)
        checks += W.safe_check[BISHOP] * popcount(
            bishop_attacks(king_sq, b.occupied) & a.by_type[us][BISHOP] & safe)
        checks += W.safe_check[ROOK] * popcount(rook_attacks(king_sq, b.occupied) & a.by_type[us][ROOK] & safe)
        checks += W.safe_check[QUEEN] * popcount(
            queen_attacks(king_sq, b.occupied) & a.by_type[us][QUEEN] & safe)
        add_term(t, TERM_KING_SAFETY, sign, checks, 0)


cdef void outposts(const Board* b, int us, const Attacks* a, EvalTerms* t) noexcept nogil:
    """Knights and bishops on squares in the enemy half an own pawn defends and no enemy pawn
    can ever attack; rooks on the seventh rank when the enemy king or pawns are on their
    first two ranks."""
    cdef int them = 1 - us, sign = 1 - 2 * us, n
    cdef Bitboard outpost_ranks = (RANK_BB[3] | RANK_BB[4] | RANK_BB[5]) if us == WHITE else (
        RANK_BB[2] | RANK_BB[3] | RANK_BB[4])
    cdef Bitboard reach = fill_forward(a.by_type[them][PAWN], them)   # every square their pawns may attack
    cdef Bitboard squares = outpost_ranks & a.by_type[us][PAWN] & ~reach
    cdef Bitboard seventh = RANK_BB[6] if us == WHITE else RANK_BB[1]
    cdef Bitboard eighth = RANK_BB[7] if us == WHITE else RANK_BB[0]
    cdef int mg = 0, eg = 0
    n = popcount(pieces_of(b, us, KNIGHT) & squares)
    mg += n * W.knight_outpost_mg
    eg += n * W.knight_outpost_eg
    n = popcount(pieces_of(b, us, BISHOP) & squares)
    mg += n * W.bishop_outpost_mg
    eg += n * W.bishop_outpost_eg
    if (pieces_of(b, them, PAWN) & seventh) or (pieces_of(b, them, KING) & eighth):
        n = popcount(pieces_of(b, us, ROOK) & seventh)
        mg += n * W.rook_seventh_mg
        eg += n * W.rook_seventh_eg
    add_term(t, TERM_OUTPOSTS, sign, mg, eg)


cdef void evaluate_side(const Board* b, int us, EvalTerms* t, Attacks* a) noexcept nogil:
    """Add one side's material, tables, mobility, rooks, bishop pair and king safety, and
    record the squares its pieces attack in `a`."""
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
    for pt in range(6):
        a.by_type[us][pt] = 0
    a.by_type[us][PAWN] = pawn_attacks_bb(our_pawns, us)

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
            a.by_type[us][pt] |= attacks
            count = popcount(attacks & ~own)
            mob_mg += W.mobility_mg[pt][count]
            mob_eg += W.mobility_eg[pt][count]
            if attacks & king_zone:
                attackers += 1
                units += W.king_attack_units[pt] * popcount(attacks & king_zone)

    bb = pieces_of(b, us, KING)
    if bb:
        sq = lsb(bb)
        a.by_type[us][KING] = KING_ATTACKS[sq]
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
    a.all[us] = (a.by_type[us][PAWN] | a.by_type[us][KNIGHT] | a.by_type[us][BISHOP] | a.by_type[us][ROOK]
                 | a.by_type[us][QUEEN] | a.by_type[us][KING])


cdef void evaluate_terms(const Board* b, EvalTerms* t) noexcept nogil:
    cdef int i, mg = 0, eg = 0, score, phase, side
    cdef Attacks a
    cdef Bitboard passers[2]
    for i in range(TERM_COUNT):
        t.mg[i] = 0
        t.eg[i] = 0
    evaluate_side(b, WHITE, t, &a)
    evaluate_side(b, BLACK, t, &a)
    # The terms below need both sides' attacks.
    for side in range(2):
        passers[side] = pawn_structure(b, side, t)
        passed_pawn_details(b, side, passers[side], &a, t)
        threats(b, side, &a, t)
        outposts(b, side, &a, t)
    if b.side_to_move == WHITE:
        add_term(t, TERM_TEMPO, 1, W.tempo_mg, W.tempo_eg)
    else:
        add_term(t, TERM_TEMPO, -1, W.tempo_mg, W.tempo_eg)

    phase = game_phase(b)
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


cdef inline int game_phase(const Board* b) noexcept nogil:
    cdef int phase = (popcount(b.by_type[KNIGHT] | b.by_type[BISHOP]) + 2 * popcount(b.by_type[ROOK])
                      + 4 * popcount(b.by_type[QUEEN]))
    return phase if phase < PHASE_MAX else PHASE_MAX     # promotions


cdef int psqt_move_gain(const Board* b, Move m) noexcept nogil:
    cdef int us = b.side_to_move
    cdef int flip = 56 * us     # Black reads White's tables upside down
    cdef int from_sq = move_from(m), to_sq = move_to(m)
    cdef int pt = piece_type_of(b.squares[from_sq])
    cdef int phase = game_phase(b)
    cdef int mg, eg
    if move_kind(m) == MOVE_CASTLING:
        # Castling moves the king to the g or c file (its move is encoded as king takes rook).
        to_sq = (from_sq & 56) + (6 if to_sq > from_sq else 2)
    mg = W.psqt_mg[pt][to_sq ^ flip] - W.psqt_mg[pt][from_sq ^ flip]
    eg = W.psqt_eg[pt][to_sq ^ flip] - W.psqt_eg[pt][from_sq ^ flip]
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX


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
    w.threat_pawn_mg, w.threat_pawn_eg = _pair(weights, "threat_by_pawn")
    w.threat_minor_mg, w.threat_minor_eg = _pair(weights, "threat_by_minor")
    w.threat_rook_mg, w.threat_rook_eg = _pair(weights, "threat_by_rook")
    w.hanging_mg, w.hanging_eg = _pair(weights, "hanging_piece")
    for pt in range(6):
        w.safe_check[pt] = 0
    for piece in weight_table.MOBILE_PIECES:
        w.safe_check[names.index(piece)] = int(weights["safe_check"][piece])
    w.pawn_supported_mg, w.pawn_supported_eg = _pair(weights, "pawn_supported")
    w.pawn_phalanx_mg, w.pawn_phalanx_eg = _pair(weights, "pawn_phalanx")
    w.backward_mg, w.backward_eg = _pair(weights, "backward_pawn")
    w.passed_blocked_mg, w.passed_blocked_eg = _pair(weights, "passed_blocked")
    w.passed_supported_mg, w.passed_supported_eg = _pair(weights, "passed_supported")
    w.passed_free_mg, w.passed_free_eg = _pair(weights, "passed_free_path")
    w.passed_king_mg, w.passed_king_eg = _pair(weights, "passed_king_distance")
    w.passed_unstoppable_mg, w.passed_unstoppable_eg = _pair(weights, "passed_unstoppable")
    w.knight_outpost_mg, w.knight_outpost_eg = _pair(weights, "knight_outpost")
    w.bishop_outpost_mg, w.bishop_outpost_eg = _pair(weights, "bishop_outpost")
    w.rook_seventh_mg, w.rook_seventh_eg = _pair(weights, "rook_seventh")

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
