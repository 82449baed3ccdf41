"""The weighted evaluation: symmetry, agreement with an independent reference, sanity orderings.

The reference below recomputes every term from the weight table with python-chess, square
by square, so a slip in the bitboard code (a wrong shift, an upside-down table) shows up as
a disagreement on some term of some position.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import chess
import pytest
from conftest import random_boards
from net_files import PLAIN_NET
from nnue_reference import changes_wing

import eval as kestrel_eval
from eval import bench_evaluate, breakdown, evaluate
from eval.bench_kernels import bench_after_moves, bench_net_from_scratch
from eval.networks import builtin_path, load_network
from eval.nnue_api import nnue_evaluate
from eval.weights import WEIGHTS, default_weights, weight_names
from search.board import Position

TERMS = ("material", "psqt", "mobility", "pawns", "king_safety", "bishop_pair", "rooks", "tempo", "threats",
         "outposts")


@pytest.fixture(scope="module")
def boards() -> list[chess.Board]:
    return random_boards(games=60, seed=2024)


def score(fen: str) -> int:
    return evaluate(Position(fen))


def terms(fen: str) -> dict[str, object]:
    return breakdown(Position(fen))


# ---------------------------------------------------------------- the reference evaluation

def reference_breakdown(board: chess.Board, w: dict = WEIGHTS) -> dict[str, object]:
    """Every term recomputed from the weight table, one square at a time."""
    acc = {name: [0, 0] for name in TERMS}

    def add(name: str, sign: int, mg: int, eg: int) -> None:
        acc[name][0] += sign * mg
        acc[name][1] += sign * eg

    for colour in (chess.WHITE, chess.BLACK):
        sign = 1 if colour == chess.WHITE else -1
        own = board.occupied_co[colour]
        own_pawns = board.pieces(chess.PAWN, colour)
        enemy_pawns = board.pieces(chess.PAWN, not colour)
        enemy_king = board.king(not colour)
        zone = chess.BB_KING_ATTACKS[enemy_king] | chess.BB_SQUARES[enemy_king]
        attackers = units = 0
        for piece_type in chess.PIECE_TYPES:
            name = chess.piece_name(piece_type)
            for square in board.pieces(piece_type, colour):
                view = square if colour == chess.WHITE else chess.square_mirror(square)
                row, col = 7 - chess.square_rank(view), chess.square_file(view)
                add("material", sign, *w["material"][name])
                add("psqt", sign, w["psqt_mg"][name][row][col], w["psqt_eg"][name][row][col])
                if piece_type in (chess.PAWN, chess.KING):
                    continue
                attacks = board.attacks_mask(square)
                count = chess.popcount(attacks & ~own)
                add("mobility", sign, w["mobility_mg"][name][count], w["mobility_eg"][name][count])
                if attacks & zone:
                    attackers += 1
                    units += w["king_attack_units"][name] * chess.popcount(attacks & zone)
                if piece_type == chess.ROOK:
                    file_mask = chess.BB_FILES[chess.square_file(square)]
                    if not file_mask & board.pawns:
                        add("rooks", sign, *w["rook_open_file"])
                    elif not file_mask & own_pawns.mask:
                        add("rooks", sign, *w["rook_semi_open_file"])

        king = board.king(colour)
        king_file, king_rank = chess.square_file(king), chess.square_rank(king)
        forward = 1 if colour == chess.WHITE else -1
        king_mg = 0
        if king_file not in (3, 4):
            for df in (-1, 0, 1):
                for steps, weight in ((1, w["king_shield_near"]), (2, w["king_shield_far"])):
                    f, r = king_file + df, king_rank + steps * forward
                    if 0 <= f <= 7 and 0 <= r <= 7 and chess.square(f, r) in own_pawns:
                        king_mg += weight
        if not any(chess.square_file(p) == king_file for p in own_pawns):
            king_mg += w["king_open_file"]
        if attackers >= 2:
            king_mg += w["king_danger"][min(units, len(w["king_danger"]) - 1)]
        add("king_safety", sign, king_mg, 0)

        bishops = board.pieces(chess.BISHOP, colour).mask
        if bishops & chess.BB_DARK_SQUARES and bishops & chess.BB_LIGHT_SQUARES:
            add("bishop_pair", sign, *w["bishop_pair"])

        files = [chess.square_file(p) for p in own_pawns]
        for pawn in own_pawns:
            f, r = chess.square_file(pawn), chess.square_rank(pawn)
            ahead = (lambda rank, r=r: rank > r) if colour == chess.WHITE else (lambda rank, r=r: rank < r)
            stopped = any(abs(chess.square_file(e) - f) <= 1 and ahead(chess.square_rank(e))
                          for e in enemy_pawns)
            behind_own = any(chess.square_file(o) == f and ahead(chess.square_rank(o))
                             for o in own_pawns)
            if not stopped and not behind_own:
                rank = r if colour == chess.WHITE else 7 - r
                add("pawns", sign, w["passed_pawn_mg"][rank], w["passed_pawn_eg"][rank])
            if f - 1 not in files and f + 1 not in files:
                add("pawns", sign, *w["isolated_pawn"])
        for f in set(files):
            for _ in range(files.count(f) - 1):
                add("pawns", sign, *w["doubled_pawn"])

    for colour in (chess.WHITE, chess.BLACK):
        reference_threat_and_structure_terms(board, colour, w, add)

    add("tempo", 1 if board.turn == chess.WHITE else -1, *w["tempo"])
    phase = min(24, chess.popcount(board.knights | board.bishops) + 2 * chess.popcount(board.rooks)
                + 4 * chess.popcount(board.queens))
    mg = sum(v[0] for v in acc.values())
    eg = sum(v[1] for v in acc.values())
    blended = mg * phase + eg * (24 - phase)
    total = abs(blended) // 24 * (1 if blended >= 0 else -1)   # truncation toward zero, as in C
    if board.turn == chess.BLACK:
        total = -total
    result: dict[str, object] = {name: tuple(v) for name, v in acc.items()}
    result["phase"] = phase
    result["total"] = max(-20000, min(20000, total))
    return result


def reference_threat_and_structure_terms(board: chess.Board, colour: chess.Color, w: dict,
                             add: Callable[[str, int, int, int], None]) -> None:
    """Threats, safe checks, pawn chains, backward pawns, passer details, outposts and rooks on
    the seventh, each asked of python-chess square by square (attackers, distances)."""
    sign = 1 if colour == chess.WHITE else -1
    them = not colour
    forward = 1 if colour == chess.WHITE else -1

    def attacked_by(side: chess.Color, square: int, piece_types: tuple[int, ...] = chess.PIECE_TYPES) -> bool:
        return any(board.piece_type_at(a) in piece_types for a in board.attackers(side, square))

    def relative_rank(square: int) -> int:
        return chess.square_rank(square) if colour == chess.WHITE else 7 - chess.square_rank(square)

    def ahead(square: int, other: int) -> bool:
        """`other` stands on a rank in front of `square`, from this side's view."""
        return (chess.square_rank(other) - chess.square_rank(square)) * forward > 0

    # Threats.
    for square, piece in board.piece_map().items():
        if piece.color != them or piece.piece_type in (chess.PAWN, chess.KING):
            continue
        if attacked_by(colour, square, (chess.PAWN,)):
            add("threats", sign, *w["threat_by_pawn"])
        if piece.piece_type in (chess.ROOK, chess.QUEEN) and attacked_by(colour, square, (chess.KNIGHT, chess.BISHOP)):
            add("threats", sign, *w["threat_by_minor"])
        if piece.piece_type == chess.QUEEN and attacked_by(colour, square, (chess.ROOK,)):
            add("threats", sign, *w["threat_by_rook"])
        if board.attackers(colour, square) and not board.attackers(them, square):
            add("threats", sign, *w["hanging_piece"])

    # Safe checks: a square from which a piece of that type would check the enemy king, that
    # one of ours of that type attacks, not occupied by us and attacked by none of theirs.
    enemy_king = board.king(them)
    checks = 0
    for square in chess.SQUARES:
        if board.color_at(square) == colour or board.attackers(them, square):
            continue
        for piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
            if not attacked_by(colour, square, (piece_type,)):
                continue
            probe = board.copy(stack=False)
            probe.set_piece_at(square, chess.Piece(piece_type, colour))
            if enemy_king in probe.attacks(square):
                checks += w["safe_check"][chess.piece_name(piece_type)]
    add("king_safety", sign, checks, 0)

    # Pawns.
    own_pawns = board.pieces(chess.PAWN, colour)
    enemy_pawns = board.pieces(chess.PAWN, them)
    files = [chess.square_file(p) for p in own_pawns]
    them_pieces = any(board.pieces(t, them) for t in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN))
    own_king = board.king(colour)
    for pawn in own_pawns:
        f, r = chess.square_file(pawn), chess.square_rank(pawn)
        if attacked_by(colour, pawn, (chess.PAWN,)):
            add("pawns", sign, *w["pawn_supported"])
        if any(chess.square_rank(o) == r and abs(chess.square_file(o) - f) == 1 for o in own_pawns):
            add("pawns", sign, *w["pawn_phalanx"])
        isolated = f - 1 not in files and f + 1 not in files
        supportable = any(abs(chess.square_file(o) - f) == 1 and not ahead(pawn, o) for o in own_pawns)
        stop = pawn + 8 * forward
        if not isolated and not supportable and attacked_by(them, stop, (chess.PAWN,)):
            add("pawns", sign, *w["backward_pawn"])
        stopped = any(abs(chess.square_file(e) - f) <= 1 and ahead(pawn, e) for e in enemy_pawns)
        behind_own = any(chess.square_file(o) == f and ahead(pawn, o) for o in own_pawns)
        if stopped or behind_own:
            continue
        rank = relative_rank(pawn)
        steps = max(rank - 2, 0)
        path = [chess.square(f, rr) for rr in range(8) if ahead(pawn, chess.square(f, rr))]
        if board.piece_at(stop) is not None:
            add("pawns", sign, *w["passed_blocked"])
        if attacked_by(colour, pawn, (chess.PAWN,)):
            add("pawns", sign, *w["passed_supported"])
        if all(board.color_at(s) != them and not board.attackers(them, s) for s in path):
            add("pawns", sign, steps * w["passed_free_path"][0], steps * w["passed_free_path"][1])
        difference = min(chess.square_distance(enemy_king, stop), 5) - min(chess.square_distance(own_king, stop), 5)
        add("pawns", sign, steps * difference * w["passed_king_distance"][0],
            steps * difference * w["passed_king_distance"][1])
        if not them_pieces and all(board.piece_at(s) is None for s in path):
            promotion = chess.square(f, 7 if colour == chess.WHITE else 0)
            king_moves = chess.square_distance(enemy_king, promotion) - (1 if board.turn == them else 0)
            if min(7 - rank, 5) < king_moves:
                add("pawns", sign, *w["passed_unstoppable"])

    # Outposts and rooks on the seventh.
    for piece_type, name in ((chess.KNIGHT, "knight_outpost"), (chess.BISHOP, "bishop_outpost")):
        for square in board.pieces(piece_type, colour):
            if (3 <= relative_rank(square) <= 5 and attacked_by(colour, square, (chess.PAWN,))
                    and not any(abs(chess.square_file(e) - chess.square_file(square)) == 1 and ahead(square, e)
                                for e in enemy_pawns)):
                add("outposts", sign, *w[name])
    seventh = [s for s in chess.SQUARES if relative_rank(s) == 6]
    eighth = [s for s in chess.SQUARES if relative_rank(s) == 7]
    if any(s in enemy_pawns for s in seventh) or enemy_king in eighth:
        for square in board.pieces(chess.ROOK, colour):
            if relative_rank(square) == 6:
                add("outposts", sign, *w["rook_seventh"])


def test_matches_the_reference_term_by_term(boards: list[chess.Board]) -> None:
    for board in boards[::8]:
        assert breakdown(Position(board.fen())) == reference_breakdown(board), board.fen()


# ---------------------------------------------------------------- symmetry and consistency

def test_colour_mirrored_positions_score_the_same(boards: list[chess.Board]) -> None:
    assert len(boards) > 2000
    for board in boards:
        mirrored = board.mirror()
        original, twin = Position(board.fen()), Position(mirrored.fen())
        assert evaluate(original) == evaluate(twin), board.fen()


def test_mirrored_terms_are_negated(boards: list[chess.Board]) -> None:
    for board in boards[::5]:
        a, b = breakdown(Position(board.fen())), breakdown(Position(board.mirror().fen()))
        for name in TERMS:
            assert a[name] == tuple(-v for v in b[name]), (name, board.fen())
        assert a["phase"] == b["phase"]


def test_breakdown_total_is_evaluate_and_c_path_agrees(boards: list[chess.Board]) -> None:
    positions = [Position(board.fen()) for board in boards[::3]]
    for position in positions:
        value = evaluate(position)
        assert breakdown(position)["total"] == value
        assert bench_evaluate([position], 1) == value      # the C function, called without the GIL
        assert abs(value) <= 20000
    assert bench_evaluate(positions, 3) == 3 * sum(evaluate(p) for p in positions)


@pytest.mark.parametrize("net_name", ["built-in", "plain kestrel-5"])
def test_the_bench_kernels_evaluate_each_position_and_each_child(boards: list[chess.Board],
                                                                 net_name: str) -> None:
    """eval.bench's loops score each position and the position after each of its legal moves, with
    the weighted evaluation or a net (the built-in one, king-mirrored, and the plain kestrel-5), as
    the Python faces score them; the net's children come from their parent's accumulators: a
    refresh at most per position and round, plus one per round for each child whose king changed
    wing when the net mirrors."""
    parents = [board for board in boards[::12] if not board.is_game_over()]
    everything = []
    crossings = 0
    for board in parents:
        everything.append(Position(board.fen()))
        for move in board.legal_moves:
            crossings += changes_wing(board, move)
            child = board.copy()
            child.push(move)
            everything.append(Position(child.fen()))
    positions = [Position(board.fen()) for board in parents]
    count, refreshes, total = bench_after_moves(positions, 2)
    assert (count, refreshes, total) == (2 * len(everything), 0, 2 * sum(evaluate(p) for p in everything))
    network, params = load_network(builtin_path() if net_name == "built-in" else PLAIN_NET)
    if params.feature_set == 0:
        crossings = 0
    assert crossings > 0 or net_name != "built-in"
    count, refreshes, total = bench_after_moves(positions, 2, network)
    assert count == 2 * len(everything)
    assert total == 2 * sum(nnue_evaluate(network, p) for p in everything)
    assert len(positions) + 2 * crossings <= refreshes <= 2 * (len(positions) + crossings) < count
    assert bench_net_from_scratch(positions, 3, network) == 3 * sum(nnue_evaluate(network, p) for p in positions)


def test_breakdown_shape() -> None:
    result = terms(chess.STARTING_FEN)
    assert set(result) == set(TERMS) | {"phase", "total"}
    assert result["phase"] == 24
    assert kestrel_eval.TERM_NAMES == TERMS


# ---------------------------------------------------------------- sanity orderings

def test_start_position_is_near_level() -> None:
    result = terms(chess.STARTING_FEN)
    assert all(result[name] == (0, 0) for name in TERMS if name != "tempo")
    assert abs(result["total"]) <= 20


def test_a_queen_up_is_much_better() -> None:
    no_black_queen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert score(no_black_queen + " w KQkq - 0 1") > 700
    assert score(no_black_queen + " b KQkq - 0 1") < -700


def test_material_orders_the_pieces() -> None:
    base = "4k3/8/8/8/3{}4/8/8/4K3 w - - 0 1"
    values = {piece: score(base.format(piece)) for piece in "PNBRQ"}
    assert values["P"] < values["N"] < values["R"] < values["Q"]
    assert values["P"] < values["B"] < values["R"]


def test_passed_pawn_on_the_seventh_beats_the_third() -> None:
    seventh, third = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/P7/8/4K3 w - - 0 1"
    assert terms(seventh)["pawns"][1] > terms(third)["pawns"][1]
    assert score(seventh) > score(third)


THREAT_AND_STRUCTURE_PAIRS = ("threat_by_pawn", "threat_by_minor", "threat_by_rook", "hanging_piece", "pawn_supported",
                  "pawn_phalanx", "backward_pawn", "passed_blocked", "passed_supported", "passed_free_path",
                  "passed_king_distance", "passed_unstoppable", "knight_outpost", "bishop_outpost", "rook_seventh")


@contextlib.contextmanager
def only_threat_or_structure_term(name: str | None) -> Iterator[None]:
    """The table with every threat and structure term (THREAT_AND_STRUCTURE_PAIRS, safe checks) at
    zero except `name` (None: all zero)."""
    table = default_weights()
    for pair in THREAT_AND_STRUCTURE_PAIRS:
        if pair != name:
            table[pair] = (0, 0)
    for piece in table["safe_check"]:
        if name != "safe_check":
            table["safe_check"][piece] = 0
    kestrel_eval.load_weights(table)
    try:
        yield
    finally:
        kestrel_eval.load_weights(default_weights())


def test_threats_of_pawns_and_hanging_pieces() -> None:
    # The e4 pawn attacks the d5 knight, which nothing of Black's defends.
    fen = "4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1"
    with only_threat_or_structure_term("threat_by_pawn"):
        assert terms(fen)["threats"] == WEIGHTS["threat_by_pawn"]
    with only_threat_or_structure_term("hanging_piece"):
        assert terms(fen)["threats"] == WEIGHTS["hanging_piece"]
        # Defended by the c6 pawn, the knight no longer hangs.
        assert terms("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1")["threats"] == (0, 0)
    with only_threat_or_structure_term("threat_by_minor"):
        # The f3 knight attacks the black rook on e5; Black's rook attacks nothing of White's.
        assert terms("4k3/8/8/4r3/8/5N2/8/4K3 w - - 0 1")["threats"] == WEIGHTS["threat_by_minor"]


def test_safe_checks_count_only_unguarded_squares() -> None:
    weight = WEIGHTS["safe_check"]["rook"]
    with only_threat_or_structure_term("safe_check"):
        with_check = terms("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")["king_safety"][0]     # Ra8+ is safe
        guarded = terms("4k3/8/1n6/8/8/8/8/R3K3 w - - 0 1")["king_safety"][0]      # b6 knight covers a8
        assert with_check - guarded == weight


def test_passer_outside_the_square_is_unstoppable() -> None:
    # White's a5 pawn needs 3 moves; Black's king on h6 needs 7 to reach a8, on b6 only 1.
    with only_threat_or_structure_term("passed_unstoppable"):
        outside = terms("8/8/7k/P7/8/8/8/4K3 b - - 0 1")["pawns"]
        inside = terms("8/8/1k6/P7/8/8/8/4K3 b - - 0 1")["pawns"]
        assert outside[1] - inside[1] == WEIGHTS["passed_unstoppable"][1]


def test_backward_pawn_and_outpost() -> None:
    # d3 cannot be defended by the e4 pawn (ahead of it) and the c5 pawn guards d3's stop square d4.
    # Only d3 is backward: e4 has d3 behind it, and c5 is isolated (counted as such).
    fen = "4k3/8/8/2p5/4P3/3P4/8/4K3 w - - 0 1"
    with only_threat_or_structure_term(None):
        without = terms(fen)["pawns"]
    with only_threat_or_structure_term("backward_pawn"):
        with_term = terms(fen)["pawns"]
    assert (with_term[0] - without[0], with_term[1] - without[1]) == WEIGHTS["backward_pawn"]
    with only_threat_or_structure_term("knight_outpost"):
        # A knight on d5 defended by the e4 pawn; no black pawn on c or e files ahead of it.
        assert terms("4k3/8/8/3N4/4P3/8/8/4K3 w - - 0 1")["outposts"] == WEIGHTS["knight_outpost"]
        # A black pawn on c7 can come to c6 and drive it away: no outpost.
        assert terms("4k3/2p5/8/3N4/4P3/8/8/4K3 w - - 0 1")["outposts"] == (0, 0)


def test_pawn_structure_features() -> None:
    with only_threat_or_structure_term(None):
        classic_pawn_structure_features()


def classic_pawn_structure_features() -> None:
    passed_mg, passed_eg = WEIGHTS["passed_pawn_mg"], WEIGHTS["passed_pawn_eg"]
    isolated_mg, isolated_eg = WEIGHTS["isolated_pawn"]
    # e5 and d6 stop each other (an enemy pawn ahead on a neighbouring file): both merely isolated.
    assert terms("4k3/8/3p4/4P3/8/8/8/4K3 w - - 0 1")["pawns"] == (0, 0)
    # e5 against h7: both passed (rank 5 for White, rank 2 for Black) and isolated.
    free = terms("4k3/7p/8/4P3/8/8/8/4K3 w - - 0 1")["pawns"]
    assert free == (passed_mg[4] - passed_mg[1], passed_eg[4] - passed_eg[1])
    assert free[1] > 0
    # Doubled isolated pawns against a healthy pair on neighbouring files.
    doubled = terms("4k3/8/8/8/8/4P3/4P3/4K3 w - - 0 1")["pawns"]
    connected = terms("4k3/8/8/8/8/8/3PP3/4K3 w - - 0 1")["pawns"]
    doubled_mg, doubled_eg = WEIGHTS["doubled_pawn"]
    passer_mg, passer_eg = WEIGHTS["passed_pawn_mg"][2], WEIGHTS["passed_pawn_eg"][2]
    assert doubled == (2 * isolated_mg + doubled_mg + passer_mg, 2 * isolated_eg + doubled_eg + passer_eg)
    assert connected[1] > doubled[1]


def test_bishop_pair_needs_two_bishops_on_both_colours() -> None:
    pair = terms("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1")["bishop_pair"]
    bishop_and_knight = terms("4k3/8/8/8/8/8/8/2B1KN2 w - - 0 1")["bishop_pair"]
    same_colour = terms("4k3/8/8/8/8/8/8/2B1K1B1 w - - 0 1")["bishop_pair"]  # c1 and g1: both dark
    assert pair == tuple(WEIGHTS["bishop_pair"]) and pair[0] > 0
    assert bishop_and_knight == (0, 0)
    assert same_colour == (0, 0)


def test_rook_on_open_and_semi_open_files() -> None:
    open_file = terms("4k3/pp6/8/8/8/8/PP6/3RK3 w - - 0 1")["rooks"]
    semi_open = terms("3k4/3p4/8/8/8/8/PP6/3RK3 w - - 0 1")["rooks"]
    closed = terms("4k3/pp6/8/8/8/8/PP6/R3K3 w - - 0 1")["rooks"]
    assert open_file == tuple(WEIGHTS["rook_open_file"])
    assert semi_open == tuple(WEIGHTS["rook_semi_open_file"])
    assert closed == (0, 0)
    assert open_file[0] > semi_open[0] > closed[0]


def test_attacked_king_is_worse_for_its_side() -> None:
    quiet = "r4rk1/pp3ppp/8/8/8/8/PP3PPP/3QR1K1 w - - 0 1"
    attacked = "r4rk1/pp3ppp/8/6NQ/8/8/PP3PPP/6K1 w - - 0 1"   # queen and knight hit f7 and h7
    shelter = "r4rk1/pp3ppp/8/8/8/8/PP6/4R1K1 w - - 0 1"       # white king without pawns
    assert terms(attacked)["king_safety"][0] > terms(quiet)["king_safety"][0]
    assert terms(shelter)["king_safety"][0] < terms(quiet)["king_safety"][0]


def test_phase_tapers_from_middlegame_to_endgame() -> None:
    assert terms("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")["phase"] == 0
    assert terms("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1")["phase"] == 4


# ---------------------------------------------------------------- loading weights

def test_load_weights_changes_the_score_and_restores() -> None:
    fen = "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1"
    before = score(fen)
    changed = default_weights()
    mg, eg = changed["bishop_pair"]
    changed["bishop_pair"] = (mg + 100, eg + 100)
    try:
        kestrel_eval.load_weights(changed)
        assert terms(fen)["bishop_pair"] == (mg + 100, eg + 100)
        assert score(fen) == before + 100
    finally:
        kestrel_eval.load_weights(default_weights())
    assert score(fen) == before


def test_vector_round_trip_and_bad_tables() -> None:
    vector = kestrel_eval.weights_as_vector()
    assert len(vector) == len(weight_names())
    assert kestrel_eval.current_weights() == default_weights()
    before = score(chess.STARTING_FEN)
    bad = default_weights()
    bad["psqt_mg"]["knight"] = bad["psqt_mg"]["knight"][:7]
    with pytest.raises(ValueError):
        kestrel_eval.load_weights(bad)
    with pytest.raises(ValueError):
        kestrel_eval.load_vector(vector[:-1])
    assert kestrel_eval.weights_as_vector() == vector       # a rejected table changes nothing
    kestrel_eval.load_vector(vector)
    assert score(chess.STARTING_FEN) == before
