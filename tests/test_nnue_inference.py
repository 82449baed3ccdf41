"""NNUE inference in the core (eval/nnue.pyx): the board's change records, the incremental
accumulators against a full computation, the integer formula against a Python reference
written from the spec (tests/nnue_reference.py), colour symmetry, and the searchers with a network."""

from __future__ import annotations

import random
from array import array
from typing import Any

import chess
import pytest
import random_play
from net_files import net_parameters, random_network, random_parameters
from nnue_internals import IncrementalNnue, nnue_accumulators
from nnue_reference import changes_wing, evaluate_reference, reference_bucket
from nnue_reference import reference_accumulators as spec_accumulators

from eval.api import evaluate
from eval.nnue import Network
from eval.nnue_api import nnue_evaluate
from search.alphabeta_searcher import AlphaBetaSearcher
from search.board.position import Position
from search.limits import SearchLimits
from search.mcts_searcher import MCTSSearcher
from search.reference import alphabeta_value, minimax_value

EVAL_LIMIT = 20000
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
PROMOTIONS = "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"
EN_PASSANT = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
CHESS960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
START = chess.STARTING_FEN


@pytest.fixture(scope="module")
def params() -> dict[str, Any]:
    return random_parameters(hidden=64, seed=7)


@pytest.fixture(scope="module")
def net(params: dict[str, Any]) -> Network:
    return Network(**params)


# ---------------------------------------------------------------- the reference, from the spec

def reference_accumulators(p: dict[str, Any], board: chess.Board) -> list[list[int]]:
    """acc_p = feature_bias + the rows of p's active inputs, in int16 arithmetic (wrapping)."""
    return spec_accumulators(net_parameters(p), board)


def reference_evaluate(p: dict[str, Any], board: chess.Board) -> int:
    """The spec's score, clamped to the engine's evaluation limit as the search sees it."""
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, evaluate_reference(net_parameters(p), board)))


def random_boards(count: int, seed: int, plies: int = 80) -> list[chess.Board]:
    """Positions of random games from a few starts (every kind of move happens in them)."""
    starts = [chess.Board(START), chess.Board(KIWIPETE), chess.Board(PROMOTIONS), chess.Board(EN_PASSANT),
              chess.Board(CHESS960, chess960=True)]
    return random_play.random_boards(count, seed, plies, starts)


def position_of(board: chess.Board) -> Position:
    return Position(board.fen(), chess960=board.chess960)


# ---------------------------------------------------------------- the network object

def test_network_checks_its_shapes_and_constants(params: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="hidden"):
        Network(**{**params, "hidden": 60})
    with pytest.raises(ValueError, match="feature weights"):
        Network(**{**params, "feature_weights": array("h", [0] * 10)})
    with pytest.raises(ValueError, match="qa"):
        Network(**{**params, "qa": 0})
    with pytest.raises(ValueError, match="output buckets"):
        Network(**{**params, "output_biases": ()})
    with pytest.raises(ValueError, match="output buckets"):
        Network(**{**params, "output_biases": (0,) * 9, "output_weights": array("h", [0] * (9 * 2 * 64))})
    with pytest.raises(ValueError, match="output weights"):
        Network(**{**params, "output_biases": (0, 0)})       # two buckets need twice the weights
    with pytest.raises(ValueError, match="int32"):
        Network(**{**params, "output_biases": (2**31,)})
    with pytest.raises(ValueError, match="feature_set"):
        Network(**{**params, "feature_set": 2})
    net = Network(**params)
    assert (net.hidden, net.qa, net.qb, net.scale, net.buckets) == (64, 255, 64, 400, 1)
    assert net.output_chunk == 64       # small output weights: the 16-bit path
    with pytest.raises(TypeError):
        net.__init__(**params)


def test_the_random_network_exercises_both_clamps(params: dict[str, Any]) -> None:
    values = [x for board in random_boards(10, seed=1) for acc in reference_accumulators(params, board) for x in acc]
    assert sum(x <= 0 for x in values) > len(values) // 10
    assert sum(x >= 255 for x in values) > len(values) // 20
    scores = [nnue_evaluate(Network(**params), position_of(board)) for board in random_boards(30, seed=2)]
    assert max(scores) > 100 and min(scores) < -100 and all(abs(s) < EVAL_LIMIT for s in scores)


# ---------------------------------------------------------------- the formula

def test_c_evaluation_equals_the_reference(params: dict[str, Any], net: Network) -> None:
    for board in random_boards(60, seed=3):
        position = position_of(board)
        assert [list(a) for a in nnue_accumulators(net, position)] == reference_accumulators(params, board)
        assert nnue_evaluate(net, position) == reference_evaluate(params, board), board.fen()


@pytest.mark.parametrize("output_range", [100, 128, 129, 32767])
def test_both_output_paths_equal_the_reference(output_range: int) -> None:
    """Output weights up to 128 take the 16-bit path (chunked int32 sums), larger ones 64-bit products."""
    p = random_parameters(hidden=32, seed=output_range, output_range=output_range)
    p["output_weights"] = array("h", [max(-output_range, min(output_range, w)) for w in p["output_weights"]])
    p["output_weights"][0] = output_range       # the largest weight is there
    net = Network(**p)
    assert (net.output_chunk > 0) == (output_range <= 128)
    for board in random_boards(25, seed=output_range):
        assert nnue_evaluate(net, position_of(board)) == reference_evaluate(p, board), board.fen()


def test_extreme_weights_wrap_alike_incrementally_and_afresh() -> None:
    """Accumulators that overflow int16 wrap; the order of the additions cannot matter."""
    rng = random.Random(5)
    p = random_parameters(hidden=16, seed=5, output_range=32767)
    p["feature_weights"] = array("h", [rng.choice((-32768, 32767, rng.randint(-32768, 32767)))
                                       for _ in range(768 * 16)])
    p["output_biases"] = (-(2**31),)
    net = Network(**p)
    walk_and_compare(net, START, False, seed=5, plies=60, reference=p)


def test_division_of_negative_sums_truncates_toward_zero() -> None:
    """Only the output bias and one weight: raw and the final division are negative, not exact."""
    hidden = 16
    p = {"hidden": hidden, "qa": 255, "qb": 64, "scale": 400, "feature_weights": array("h", [0] * (768 * hidden)),
         "feature_bias": array("h", [7] * hidden), "output_weights": array("h", [0] * (2 * hidden)),
         "output_biases": (-1,)}
    p["output_weights"][3] = -1
    board = chess.Board()
    # 7^2 * -1 = -49; -49 / 255 = 0 (floor division would say -1); raw -1; -400 / 16320 = 0 (not -1).
    assert reference_evaluate(p, board) == 0
    assert nnue_evaluate(Network(**p), Position()) == 0


@pytest.mark.parametrize("buckets", [2, 5, 8])
def test_each_piece_count_uses_its_output_bucket(buckets: int) -> None:
    """A net with several output layers: the C evaluation equals the spec's on positions of every
    piece count, and each bucket's layer is the one used (a net that differs only in one bucket's
    layer changes the scores of exactly the positions of that bucket)."""
    p = random_parameters(hidden=32, seed=10 + buckets, buckets=buckets)
    net = Network(**p)
    assert net.buckets == buckets and len(net.output_biases) == buckets
    boards = random_boards(40, seed=20 + buckets, plies=200)
    counts = {len(board.piece_map()) for board in boards}
    assert len(counts) > 8                          # the games thin out: many piece counts
    changed_bucket = buckets - 1
    other = dict(p, output_biases=tuple(b + (50_000 if k == changed_bucket else 0)
                                        for k, b in enumerate(p["output_biases"])))
    other_net = Network(**other)
    for board in boards:
        position = position_of(board)
        assert nnue_evaluate(net, position) == reference_evaluate(p, board), board.fen()
        in_bucket = reference_bucket(len(board.piece_map()), buckets) == changed_bucket
        assert (nnue_evaluate(other_net, position) != nnue_evaluate(net, position)) == in_bucket, board.fen()


def test_incremental_evaluation_with_buckets_equals_afresh() -> None:
    """Captures move a position from bucket to bucket during a walk; the incremental evaluation follows."""
    p = random_parameters(hidden=32, seed=31, buckets=8)
    walk_and_compare(Network(**p), KIWIPETE, False, seed=31, plies=120, reference=p)


# ---------------------------------------------------------------- symmetry

def test_a_mirrored_position_evaluates_the_same(net: Network) -> None:
    for board in random_boards(40, seed=4):
        if board.chess960:
            continue
        mirrored = board.mirror()
        assert nnue_evaluate(net, position_of(board)) == nnue_evaluate(net, position_of(mirrored)), board.fen()


# ---------------------------------------------------------------- the board's records

def test_the_board_records_what_each_move_changed() -> None:
    walk = IncrementalNnue(random_network(16), Position(KIWIPETE))
    walk.push("e1g1")                   # castling: king e1-g1, rook h1-f1 (white king 5, rook 3)
    assert sorted(walk.last_move_changes()) == [(3, 7, 5), (5, 4, 6)]
    walk.push("a6e2")                   # a capture: black bishop (8) a6-e2, white bishop (2) vanishes
    assert sorted(walk.last_move_changes()) == [(2, 12, 64), (8, 40, 12)]
    walk.push("0000")
    assert walk.last_move_changes() == []
    walk = IncrementalNnue(random_network(16), Position(PROMOTIONS))
    walk.push("g2h1q")                  # black pawn (6) g2 vanishes, black queen (10) appears on h1, knight (1) taken
    assert sorted(walk.last_move_changes()) == [(1, 7, 64), (6, 14, 64), (10, 64, 7)]
    walk = IncrementalNnue(random_network(16), Position(EN_PASSANT))
    walk.push("e5f6")                   # white pawn e5-f6, black pawn (6) f5 vanishes
    assert sorted(walk.last_move_changes()) == [(0, 36, 45), (6, 37, 64)]


CHESS960_CASTLES = [
    ("4k3/8/8/8/8/8/8/6KR w K - 0 1", "g1h1", [(3, 7, 5)]),             # the king stays on g1
    ("4k3/8/8/8/8/8/8/4KR2 w K - 0 1", "e1f1", [(5, 4, 6)]),            # the rook stays on f1
    ("4k3/8/8/8/8/8/8/R1K5 w Q - 0 1", "c1a1", [(3, 0, 3)]),            # the king stays on c1
    ("4k3/8/8/8/8/8/8/3RK3 w Q - 0 1", "e1d1", [(5, 4, 2)]),            # the rook stays on d1
    ("4k3/8/8/8/8/8/8/5KR1 w K - 0 1", "f1g1", [(3, 6, 5), (5, 5, 6)]),  # king and rook swap
    ("6kr/8/8/8/8/8/8/4K3 b k - 0 1", "g8h8", [(9, 63, 61)]),           # Black's king stays on g8
    ("3rk3/8/8/8/8/8/8/4K3 b q - 0 1", "e8d8", [(11, 60, 58)]),         # Black's rook stays on d8
]


@pytest.mark.parametrize("feature_set", [0, 1])
@pytest.mark.parametrize("fen, move, changes", CHESS960_CASTLES)
def test_chess960_castling_records_only_pieces_that_move(net: Network, fen: str, move: str,
                                                         changes: list[tuple[int, int, int]], feature_set: int) -> None:
    """With a king-mirrored net, a castling whose king lands on the other wing (e1-c1 here) refreshes."""
    if feature_set:
        net = Network(**random_parameters(hidden=32, seed=45, feature_set=1))
    walk = IncrementalNnue(net, Position(fen, chess960=True))
    walk.evaluate()
    walk.push(move)
    assert sorted(walk.last_move_changes()) == sorted(changes)
    assert walk.evaluate() == walk.refreshed()[0]
    assert walk.accumulators() == walk.refreshed()[1]
    crosses = any(piece % 6 == 5 and ((start & 7) >= 4) != ((end & 7) >= 4) for piece, start, end in changes)
    assert (walk.updates, walk.refreshes) == ((0, 2) if feature_set and crosses else (1, 1))


# ---------------------------------------------------------------- incremental against afresh

def test_castling_both_ways_for_both_sides(net: Network) -> None:
    walk = IncrementalNnue(net, Position(KIWIPETE))
    walk.evaluate()
    for line in (["e1g1", "e8c8"], ["e1c1", "e8g8"], ["a1b1", "e8g8", "e1g1"], ["e1c1", "e8c8"]):
        for move in line:
            walk.push(move)
            assert walk.evaluate() == walk.refreshed()[0]
            assert walk.accumulators() == walk.refreshed()[1], (line, move)
        for _ in line:
            walk.pop()
    assert walk.refreshes == 1

def move_kind(board: chess.Board, move: chess.Move) -> str:
    if board.is_castling(move):
        return "castling"
    if board.is_en_passant(move):
        return "en passant"
    if move.promotion:
        return "capture-promotion" if board.is_capture(move) else "promotion"
    return "capture" if board.is_capture(move) else "quiet"


def walk_and_compare(net: Network, fen: str, chess960: bool, seed: int, plies: int,
                     reference: dict[str, Any] | None = None) -> dict[str, int]:
    """Random play with a taste for special moves, null moves and take-backs; the lazily
    updated accumulators must equal a full computation wherever they are asked for."""
    rng = random.Random(seed)
    board = chess.Board(fen, chess960=chess960)
    walk = IncrementalNnue(net, Position(fen, chess960=chess960))
    kinds: dict[str, int] = {}
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        roll = rng.random()
        if roll < 0.08 and not board.is_check() and board.move_stack:
            board.push(chess.Move.null())
            walk.push("0000")
            kinds["null"] = kinds.get("null", 0) + 1
        elif roll < 0.18 and len(board.move_stack) > 2:
            for _ in range(rng.randint(1, 3)):      # take back, so that siblings follow
                board.pop()
                walk.pop()
            continue
        else:
            special = [m for m in moves if move_kind(board, m) not in ("quiet", "capture")]
            move = rng.choice(special if special and rng.random() < 0.8 else moves)
            kind = move_kind(board, move)
            kinds[kind] = kinds.get(kind, 0) + 1
            if changes_wing(board, move):
                kinds["king changes wing"] = kinds.get("king changes wing", 0) + 1
            walk.push(board.uci(move))
            board.push(move)
        assert walk.fen().split()[:2] == board.fen().split()[:2]
        if rng.random() < 0.6:                      # not every position: the walk must bridge gaps
            value = walk.evaluate()
            fresh_value, fresh = walk.refreshed()
            assert walk.accumulators() == fresh, board.fen()
            assert value == fresh_value, board.fen()
            if reference is not None:
                assert value == reference_evaluate(reference, board), board.fen()
    assert walk.updates > 3 * walk.refreshes
    return kinds


def test_incremental_accumulators_equal_a_refresh(net: Network) -> None:
    seen: dict[str, int] = {}
    for seed, (fen, chess960) in enumerate([(START, False), (KIWIPETE, False), (PROMOTIONS, False),
                                            (EN_PASSANT, False), (CHESS960, True), (KIWIPETE, False)]):
        for kind, count in walk_and_compare(net, fen, chess960, seed, plies=300).items():
            seen[kind] = seen.get(kind, 0) + count
    for kind in ("quiet", "capture", "castling", "en passant", "promotion", "capture-promotion", "null"):
        assert seen.get(kind, 0) > 0, (kind, seen)


def test_king_mirrored_accumulators_follow_a_king_across_the_board() -> None:
    """A king-mirrored net: every walk equals a full computation and the spec, through kings that
    change wing (castling queenside, steps between files d and e) and all the other kinds of move."""
    p = random_parameters(hidden=32, seed=41, feature_set=1)
    net = Network(**p)
    assert net.feature_set == 1
    seen: dict[str, int] = {}
    for seed, (fen, chess960) in enumerate([(START, False), (KIWIPETE, False), (PROMOTIONS, False),
                                            (EN_PASSANT, False), (CHESS960, True)]):
        for kind, count in walk_and_compare(net, fen, chess960, 50 + seed, plies=200, reference=p).items():
            seen[kind] = seen.get(kind, 0) + count
    for kind in ("quiet", "capture", "castling", "promotion", "null", "king changes wing"):
        assert seen.get(kind, 0) > 0, (kind, seen)


def test_a_king_that_changes_wing_refreshes_only_a_mirrored_net() -> None:
    """The incremental step is kept for every move but a king's to the other wing, and only in a
    net that mirrors by the king."""
    for feature_set, refreshes in ((0, 1), (1, 2)):
        net = Network(**random_parameters(hidden=16, feature_set=feature_set))
        walk = IncrementalNnue(net, Position("4k3/8/8/8/8/8/8/4K3 w - - 0 1"))
        walk.evaluate()
        walk.push("e1f1")                # stays on files e-h
        walk.evaluate()
        walk.push("e8d8")                # Black's king changes wing
        walk.evaluate()
        assert (walk.refreshes, walk.updates) == (refreshes, 3 - refreshes), feature_set
        assert walk.accumulators() == walk.refreshed()[1]


def test_c_evaluation_of_a_king_mirrored_net_equals_the_reference() -> None:
    p = random_parameters(hidden=32, seed=43, feature_set=1)
    net = Network(**p)
    for board in random_boards(40, seed=43):
        assert nnue_evaluate(net, position_of(board)) == reference_evaluate(p, board), board.fen()


def test_a_left_right_mirrored_position_evaluates_the_same_with_a_king_mirrored_net() -> None:
    mirrored_net = Network(**random_parameters(hidden=32, seed=44, feature_set=1))
    plain_net = Network(**random_parameters(hidden=32, seed=44))
    plain_differs = 0
    boards = [board for board in random_boards(30, seed=44) if not board.chess960]
    for board in boards:
        board.castling_rights = chess.BB_EMPTY
        flipped = board.transform(chess.flip_horizontal)
        assert nnue_evaluate(mirrored_net, position_of(board)) == nnue_evaluate(mirrored_net, position_of(flipped))
        plain_differs += nnue_evaluate(plain_net, position_of(board)) != nnue_evaluate(plain_net, position_of(flipped))
    assert plain_differs > len(boards) // 2


def test_the_walk_matches_the_reference_at_256(params: dict[str, Any]) -> None:
    p = random_parameters(hidden=256, seed=11)
    walk_and_compare(Network(**p), KIWIPETE, False, seed=11, plies=40, reference=p)


def test_a_long_gap_refreshes_instead_of_replaying(net: Network) -> None:
    walk = IncrementalNnue(net, Position())
    walk.evaluate()
    for move in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "b1c3", "f8c5", "d2d3", "d7d6",
                 "c1g5", "c8g4", "d1d2", "d8d7", "a2a3", "a7a6", "h2h3", "h7h6", "b2b4", "b7b5"]:
        walk.push(move)
    assert walk.evaluate() == walk.refreshed()[0]
    assert walk.refreshes == 2 and walk.updates == 0      # 20 moves to replay cost more than 32 pieces
    walk.push("a1b1")
    assert walk.evaluate() == walk.refreshed()[0]
    assert walk.refreshes == 2 and walk.updates == 1


# ---------------------------------------------------------------- the searchers

def test_reference_searchers_use_the_network(net: Network) -> None:
    position = Position(KIWIPETE)
    children = []
    for move in position.legal_moves():
        child = position.copy()
        child.push(move)
        children.append(-nnue_evaluate(net, child))
    assert minimax_value(position, 1, net)[0] == max(children)
    assert alphabeta_value(position, 2, net)[0] == minimax_value(position, 2, net)[0]
    assert minimax_value(position, 1)[0] != minimax_value(position, 1, net)[0]


def test_alpha_beta_with_two_threads_and_a_network() -> None:
    net = random_network(256, seed=3)
    searcher = AlphaBetaSearcher(hash_mb=8, threads=2)
    searcher.set_network(net)
    assert searcher.network is net
    for fen in (START, KIWIPETE, PROMOTIONS):
        position = Position(fen)
        result = searcher.search(position, SearchLimits(depth=6))
        assert result.best_move in position.legal_moves()
    with pytest.raises(TypeError):
        searcher.set_network("net.nnue")


def test_mcts_with_a_network() -> None:
    net = random_network(64, seed=4)
    for threads, mode in ((1, "eval"), (2, "eval"), (1, "playout")):
        searcher = MCTSSearcher(hash_mb=8, threads=threads)
        searcher.leaf_mode = mode
        searcher.set_network(net)
        position = Position(KIWIPETE)
        result = searcher.search(position, SearchLimits(nodes=100))     # playouts; each leaf searches
        assert result.best_move in position.legal_moves()


def test_without_a_network_the_search_is_the_weighted_one() -> None:
    """Setting a network and taking it away leaves the searcher as it was (its table was cleared)."""
    position = Position(KIWIPETE)
    fresh = AlphaBetaSearcher(hash_mb=8).search(position, SearchLimits(depth=7)).nodes
    searcher = AlphaBetaSearcher(hash_mb=8)
    searcher.set_network(random_network(32, seed=2))
    with_net = searcher.search(position, SearchLimits(depth=7)).nodes
    searcher.set_network(None)
    assert searcher.search(position, SearchLimits(depth=7)).nodes == fresh != with_net
    assert evaluate(position) == evaluate(Position(KIWIPETE))
