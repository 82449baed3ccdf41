"""MCTS's move priors as weighted features: what each feature sees, that the priors are the
softmax of the chosen weight table, and the tool that fits the weights (tools/policy_fit.py)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import chess
import chess.pgn
import pytest
from mcts_internals import prior_refresh_depth

from search.board import Position
from search.limits import SearchLimits
from search.mcts_searcher import PRIOR_FEATURES, MCTSSearcher
from search.mcts_settings import DEFAULT_FITTED_PRIORS
from tools import policy_fit


def features(fen: str, tt_move: str | None = None) -> dict[str, dict[str, float]]:
    """Each legal move's features by name."""
    rows = MCTSSearcher(hash_mb=1).prior_features(Position(fen), tt_move)
    return {move: dict(zip(PRIOR_FEATURES, row, strict=True)) for move, row in rows.items()}


def test_every_legal_move_gets_one_value_per_feature() -> None:
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    rows = features(fen)
    assert sorted(rows) == sorted(m.uci() for m in chess.Board(fen).legal_moves)
    assert all(len(row) == len(PRIOR_FEATURES) for row in rows.values())


def test_a_quiet_move_that_hangs_a_piece_shows_its_loss() -> None:
    # Nf3-g5 walks into h6xg5 (a knight for nothing); Nf3-d4 is met by e5xd4 as well, while Nc3-b5 is safe.
    rows = features("rnbqkbnr/ppp2pp1/7p/3pp3/8/2N2N2/PPPPPPPP/R1BQKB1R w KQkq - 0 4")
    assert rows["f3g5"]["quiet_loss"] == pytest.approx(-3.2)
    assert rows["f3d4"]["quiet_loss"] < 0
    assert rows["c3b5"]["quiet_loss"] == 0.0
    assert rows["f3g5"]["capture"] == 0.0


def test_captures_split_by_their_exchange() -> None:
    rows = features("rnb1kbnr/pppp1ppp/8/4p1q1/3P4/2N5/PPP1PPPP/R1BQKBNR w KQkq - 0 3")
    assert rows["c1g5"]["capture"] == 1.0 and rows["c1g5"]["capture_gain"] == pytest.approx(9.0)
    # d4xe5 is a pawn for a pawn: a capture that does not lose.
    assert rows["d4e5"]["capture"] == 1.0 and rows["d4e5"]["capture_loss"] == 0.0


def test_a_threatened_piece_that_moves_to_safety_escapes() -> None:
    # The pawn on e5 attacks the knight on d4: d4-b5 and d4-f3 escape, d4-e6 and d4-c6 walk
    # into other pawns, and a move of another piece leaves it where it is.
    rows = features("rnbqkbnr/pppp1p1p/8/4p1p1/3N4/8/PPPPPPPP/RNBQKB1R w KQkq - 0 3")
    assert rows["d4b5"]["escape"] == pytest.approx(3.2)
    assert rows["d4f3"]["escape"] == pytest.approx(3.2)
    assert rows["d4e6"]["escape"] == 0.0 and rows["d4e6"]["quiet_loss"] < 0
    assert rows["d4c6"]["escape"] == 0.0
    assert rows["b1c3"]["escape"] == 0.0


def test_a_move_that_leaves_another_threatened_piece_threatened_ignores_the_threat() -> None:
    # The knight on d4 is attacked by the pawn on e5 and not defended: a knight move is its own
    # escape (not counted here), c2-c3 and e2-e3 defend it (the pawn still wins a knight for a
    # pawn: 3.2 - 1), and b1-c3 leaves it hanging.
    rows = features("rnbqkbnr/pppp1p1p/8/4p1p1/3N4/8/PPPPPPPP/RNBQKB1R w KQkq - 0 3")
    assert rows["b1c3"]["ignored_threat"] == pytest.approx(-3.2)
    assert rows["e2e3"]["ignored_threat"] == pytest.approx(-2.2)
    assert rows["c2c3"]["ignored_threat"] == pytest.approx(-2.2)
    assert rows["d4b5"]["ignored_threat"] == 0.0
    # The bishop on c4, defended by the knight, is attacked by the pawn on b5: taking the pawn
    # ends the threat, a king move does not.
    rows = features("4k3/8/8/1p6/2B5/N7/8/4K3 w - - 0 1")
    assert rows["a3b5"]["ignored_threat"] == 0.0
    assert rows["e1e2"]["ignored_threat"] == pytest.approx(-2.3)
    # Nothing threatened: no move ignores anything.
    assert all(row["ignored_threat"] == 0.0 for row in features(chess.STARTING_FEN).values())


def test_the_feature_names_follow_the_enum() -> None:
    # A feature's name and its value line up: the table move is marked under "tt_move" only.
    rows = features(chess.STARTING_FEN, "g1f3")
    assert [name for name, value in rows["g1f3"].items() if value == 1.0] == ["tt_move"]
    assert len(set(PRIOR_FEATURES)) == len(PRIOR_FEATURES)


def test_a_pawn_push_that_attacks_a_piece_is_a_threat() -> None:
    # d4-d5 attacks the knight on c6 and e6 is empty; a2-a3 attacks nothing.
    rows = features("r1bqkbnr/pppppppp/2n5/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2")
    assert rows["d4d5"]["pawn_threat"] == 1.0
    assert rows["a2a3"]["pawn_threat"] == 0.0


def test_castling_and_the_piece_square_gain_are_the_same_for_both_colours() -> None:
    white = features("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    black = features("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1")
    assert white["e1g1"]["castling"] == 1.0 and white["e1g1"]["capture"] == 0.0
    for white_move, black_move in (("e1g1", "e8g8"), ("e1c1", "e8c8"), ("e2e4", "e7e5"), ("a1b1", "a8b8")):
        assert white[white_move]["psqt"] == pytest.approx(black[black_move]["psqt"])
    # The tables prefer a knight in the centre to one on the rim.
    start = features(chess.STARTING_FEN)
    assert start["b1c3"]["psqt"] > 0 > start["b1a3"]["psqt"]


def test_a_recapture_needs_the_capture_before_it() -> None:
    # 1. e4 d5 2. exd5: Qxd5 and Nf6xd5 later retake on d5; after a quiet last move nothing is a recapture.
    position = Position("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    position.push("e4d5")
    rows = MCTSSearcher(hash_mb=1).prior_features(position)
    named = {move: dict(zip(PRIOR_FEATURES, row, strict=True)) for move, row in rows.items()}
    assert named["d8d5"]["recapture"] == 1.0
    assert named["d8d5"]["capture"] == 1.0
    assert named["g8f6"]["recapture"] == 0.0
    # The same position from its FEN has no last move: no recapture.
    assert features(position.fen())["d8d5"]["recapture"] == 0.0


def test_a_safe_knight_fork_threatens_two_greater_pieces() -> None:
    # Nc7 forks the rook on a8 and the queen on e6 from a square no black piece guards.
    rows = features("r5k1/8/4q3/1N6/8/8/8/7K w - - 0 1")
    assert rows["b5c7"]["piece_threat"] == 2.0
    assert rows["b5d4"]["piece_threat"] == 1.0     # d4 attacks the queen only
    assert rows["b5a3"]["piece_threat"] == 0.0
    # The same fork on a square the bishop on b8 guards loses the knight: no threat counted.
    guarded = features("rb4k1/8/4q3/1N6/8/8/8/7K w - - 0 1")
    assert guarded["b5c7"]["quiet_loss"] < 0 and guarded["b5c7"]["piece_threat"] == 0.0


def test_the_table_move_is_marked() -> None:
    rows = features(chess.STARTING_FEN, "g1f3")
    assert rows["g1f3"]["tt_move"] == 1.0
    assert sum(row["tt_move"] for row in rows.values()) == 1.0


@pytest.mark.parametrize("fitted", [False, True])
def test_the_priors_are_the_softmax_of_the_chosen_table(fitted: bool) -> None:
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    searcher = MCTSSearcher(hash_mb=1)
    searcher.configure(fitted_priors=fitted)
    searcher.prior_temperature = 1.7
    rows = searcher.prior_features(Position(fen))
    weights = MCTSSearcher.prior_weights(fitted)
    logits = {m: sum(w * f for w, f in zip(weights, row, strict=True)) / 1.7 for m, row in rows.items()}
    top = max(logits.values())
    total = sum(math.exp(v - top) for v in logits.values())
    expected = {m: math.exp(v - top) / total for m, v in logits.items()}
    assert searcher.priors(Position(fen)) == pytest.approx(expected, abs=1e-12)


def test_the_two_tables_differ_and_the_fitted_one_is_the_default() -> None:
    assert DEFAULT_FITTED_PRIORS is True
    assert MCTSSearcher(hash_mb=1).fitted_priors is True
    searcher = MCTSSearcher(hash_mb=1)
    searcher.configure(fitted_priors=False)
    assert searcher.fitted_priors is False
    assert MCTSSearcher.prior_weights(True) != MCTSSearcher.prior_weights(False)
    history = PRIOR_FEATURES.index("history")
    assert MCTSSearcher.prior_weights(True)[history] == MCTSSearcher.prior_weights(False)[history]


def test_the_fit_recovers_the_weights_that_made_the_labels() -> None:
    rng = random.Random(7)
    truth = [0.0] * len(PRIOR_FEATURES)
    truth[PRIOR_FEATURES.index("capture")] = 1.5
    truth[PRIOR_FEATURES.index("psqt")] = -1.0
    truth[PRIOR_FEATURES.index("check")] = 0.5
    examples = []
    for _ in range(600):
        rows = [[rng.gauss(0.0, 1.0) if i != PRIOR_FEATURES.index("history") else 0.0
                 for i in range(len(PRIOR_FEATURES))] for _ in range(6)]
        probs = policy_fit.softmax(policy_fit.logits(rows, truth))
        examples.append((rows, rng.choices(range(6), probs)[0]))
    fitted = policy_fit.fit(examples, [0.0] * len(PRIOR_FEATURES))
    assert fitted == pytest.approx(truth, abs=0.3)
    assert policy_fit.score(examples, fitted, 1.0)[0] > policy_fit.score(examples, [0.0] * len(truth), 1.0)[0]


def test_the_fit_tool_runs_on_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = chess.Board()
    for san in "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7".split():
        board.push_san(san)
    game = chess.pgn.Game.from_board(board)
    path = tmp_path / "games.pgn"
    path.write_text(str(game) + "\n")
    assert policy_fit.main([str(path), "--positions", "12", "--depth", "3", "--table-depth", "1"]) == 0
    out = capsys.readouterr().out
    assert "FITTED_PRIOR_WEIGHTS[:] = [" in out
    assert all(f"FEATURE_{name.upper()}" in out for name in PRIOR_FEATURES)


def test_the_fit_tool_refuses_games_without_positions(tmp_path: Path) -> None:
    path = tmp_path / "empty.pgn"
    path.write_text("")
    assert policy_fit.main([str(path)]) == 2


def test_prior_refreshes_come_at_each_doubling_of_visits_one_ply_deeper() -> None:
    assert [prior_refresh_depth(v) for v in (0, 1, 8, 15, 16, 17, 32, 48, 64, 100, 128, 256)] == \
        [0, 0, 0, 0, 2, 0, 3, 0, 4, 0, 5, 6]
    assert prior_refresh_depth(2**10) == 8       # the deepest
    assert prior_refresh_depth(2**11) == 0       # no deeper search after it
    with pytest.raises(ValueError):
        prior_refresh_depth(-1)
    # The root's are the same unless deep_root_refresh is on.
    assert prior_refresh_depth(16, root=True) == 2 and prior_refresh_depth(2**11, root=True) == 0


def test_deep_root_refresh_searches_the_root_deeper_and_without_a_cap() -> None:
    depths = [prior_refresh_depth(2**k, root=True, deep_root_refresh=True) for k in range(4, 17)]
    assert depths == list(range(4, 17))             # 2 plies deeper, one more at each doubling
    assert prior_refresh_depth(48, root=True, deep_root_refresh=True) == 0
    assert prior_refresh_depth(2**11, deep_root_refresh=True) == 0      # other nodes keep the cap


def test_deep_root_refresh_spends_more_alpha_beta_nodes_for_the_same_playouts() -> None:
    # 40 playouts with quiescence leaves: the root is refreshed at 16 and 32 visits, 2 and 3
    # plies deep with the switch off, 4 and 5 with it on, and no other node reaches 16 visits.
    fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
    nodes = {}
    for deep in (False, True):
        searcher = MCTSSearcher(hash_mb=16)
        searcher.configure(deep_root_refresh=deep)
        searcher.leaf_depth_root = 0
        searcher.prior_temperature = 5.0        # flat priors: no root move reaches 16 visits
        searcher.reuse_tree = False
        result = searcher.search(Position(fen), SearchLimits(nodes=40))
        assert searcher.playouts == 40
        assert max(c["visits"] for c in searcher.root_children()) < 16
        nodes[deep] = result.nodes
    assert nodes[True] > 2 * nodes[False]


def refreshed_search(refresh: bool, playouts: int) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """(the root's priors at expansion, in the tree after `playouts` playouts, and as an expansion
    would give them with the table and history the search left), quiescence leaves only and flat
    priors (temperature 5), so that no root move reaches the 16 visits of its own refresh."""
    fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
    searcher = MCTSSearcher(hash_mb=16)
    searcher.configure(refresh_priors=refresh)
    searcher.leaf_depth = 0
    searcher.leaf_depth_root = 0
    searcher.prior_temperature = 5.0
    searcher.reuse_tree = False
    before = searcher.priors(Position(fen))
    searcher.search(Position(fen), SearchLimits(nodes=playouts))
    assert searcher.playouts == playouts
    assert max(c["visits"] for c in searcher.root_children()) < 16
    tree = {c["move"]: c["prior"] for c in searcher.root_children()}
    return before, tree, searcher.priors(Position(fen))


def test_without_refreshes_the_tree_keeps_the_expansion_priors() -> None:
    before, tree, _ = refreshed_search(False, 40)
    assert tree == pytest.approx(before, abs=1e-4)


def test_a_refresh_gives_the_root_the_priors_of_its_search() -> None:
    # At 16 visits the root was searched 4 plies deep (2, and deep_root_refresh's 2 more): its
    # children's priors are those its table move and history give, no longer those of the expansion.
    before, tree, after = refreshed_search(True, 40)
    assert tree == pytest.approx(after, abs=1e-4)
    assert tree != pytest.approx(before, abs=1e-3)
    assert sum(tree.values()) == pytest.approx(1.0, abs=1e-3)
