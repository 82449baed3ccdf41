"""The strong MCTS: move priors, PUCT with first-play urgency, leaves valued by a short
alpha-beta search, the value model, the early stop and their UCI options (docs/mcts.md)."""

from __future__ import annotations

import math
import random

import chess
import pytest
from conftest import REPO_ROOT, send, uci_session
from mcts_internals import (
    DECISIVE_SCORE_CP,
    VERIFY_MARGIN_CP,
    HandTree,
    puct,
    score_of_probability,
    store_tt_move,
    verify_favourite,
    win_probability,
)

from eval.networks import builtin_network
from search.alphabeta_searcher import AlphaBetaSearcher
from search.board import Position
from search.limits import SearchLimits
from search.mcts_searcher import PRIOR_FEATURES, MCTSSearcher
from search.mcts_settings import (
    DEFAULT_DECISIVE_ROOT_MOVE,
    DEFAULT_LEAF_DEPTH,
    DEFAULT_PRIOR_TEMPERATURE,
    DEFAULT_VERIFIED_MOVE,
    DEFAULT_VISIT_SHARE_TIME,
    SETTINGS,
    Setting,
)
from search.timeman import best_move_share_factor
from search.wdl import wdl_probabilities

HANGING_QUEEN = "rnb1kbnr/pppp1ppp/8/4p1q1/3P4/2N5/PPP1PPPP/R1BQKBNR w KQkq - 0 3"   # Bxg5
# Two rooks and a king against a king: the mate in 2 starts with a quiet king move, which a
# quiescence leaf cannot see; a two-ply search at the leaf sees the mate behind it at once.
QUIET_MATE_IN_2 = "4k3/R7/7K/8/7R/8/8/8 w - - 0 1"
# Bb5 pins the queen to the king (a4 guards the bishop): a quiet move that wins the queen for a
# bishop, the only move that does not leave White a queen down.
PIN_WINS_THE_QUEEN = "4k2r/1p1q1ppp/8/8/P7/3B4/5PPP/R5K1 w - - 0 1"


def searcher(leaf_depth: int = DEFAULT_LEAF_DEPTH, **settings: object) -> MCTSSearcher:
    s = MCTSSearcher()
    s.leaf_depth = leaf_depth
    for name, value in settings.items():
        setattr(s, name, value)
    return s


# ---------------------------------------------------------------- priors

def test_priors_sum_to_one_and_put_the_winning_capture_first() -> None:
    # At temperature 1 (the default) the priors are the logits' own softmax; a higher one flattens them.
    priors = searcher(prior_temperature=1.0).priors(Position(HANGING_QUEEN))
    assert set(priors) == {m.uci() for m in chess.Board(HANGING_QUEEN).legal_moves}
    assert sum(priors.values()) == pytest.approx(1.0)
    ranked = sorted(priors, key=priors.__getitem__, reverse=True)
    assert ranked[0] == "c1g5"
    assert priors["c1g5"] > 10 * max(priors[m] for m in ("g1f3", "a2a3", "e2e4"))
    flatter = searcher(prior_temperature=2.0).priors(Position(HANGING_QUEEN))
    assert DEFAULT_PRIOR_TEMPERATURE == 1.0
    assert max(flatter, key=flatter.__getitem__) == "c1g5" and flatter["c1g5"] < priors["c1g5"]


@pytest.mark.parametrize("fitted", [False, True])
def test_the_table_move_ranks_above_the_other_quiet_moves(fitted: bool) -> None:
    s = searcher(prior_temperature=1.0)     # the logits' own scale
    s.configure(fitted_priors=fitted)
    start = Position()
    before = s.priors(start)
    assert max(before.values()) < 0.2          # nothing is known: the priors are flat
    store_tt_move(s, start, "b1a3")
    after = s.priors(start)
    assert max(after, key=after.__getitem__) == "b1a3"
    # The table move's weight multiplies its odds against any other move by e^weight.
    tt_weight = MCTSSearcher.prior_weights(fitted)[PRIOR_FEATURES.index("tt_move")]
    odds_before = before["b1a3"] / before["g1f3"]
    assert after["b1a3"] / after["g1f3"] == pytest.approx(odds_before * math.exp(tt_weight))
    assert sum(after.values()) == pytest.approx(1.0)


def test_a_high_temperature_flattens_the_priors() -> None:
    sharp = searcher(prior_temperature=0.5).priors(Position(HANGING_QUEEN))
    flat = searcher(prior_temperature=20.0).priors(Position(HANGING_QUEEN))
    assert sharp["c1g5"] > flat["c1g5"]
    assert max(flat.values()) - min(flat.values()) < 0.02
    assert sum(flat.values()) == pytest.approx(1.0)


def test_searched_nodes_store_their_priors() -> None:
    s = searcher()
    s.search(Position(HANGING_QUEEN), SearchLimits(nodes=50))
    children = s.root_children()
    assert sum(c["prior"] for c in children) == pytest.approx(1.0, abs=1e-3)
    assert max(children, key=lambda c: c["prior"])["move"] == "c1g5"
    uct = searcher(selection="uct")
    uct.search(Position(HANGING_QUEEN), SearchLimits(nodes=50))
    assert len({c["prior"] for c in uct.root_children()}) == 1    # UCT: uniform


# ---------------------------------------------------------------- PUCT and FPU on hand-made trees

def test_puct_formula() -> None:
    assert puct(0.5, 0.2, 100, 4, 1.5) == pytest.approx(0.5 + 1.5 * 0.2 * 10 / 5)
    assert puct(0.5, 0.2, 100, 4, 0.0) == pytest.approx(0.5)


def test_puct_selection_takes_the_child_with_the_best_score() -> None:
    """The search's selection loop (which rearranges the arithmetic for speed) picks a child whose
    PUCT score, as puct() computes it, is the highest: random nodes with visited and unvisited
    children, random priors, constants and first-play urgency."""
    rng = random.Random(2026)
    for _ in range(300):
        tree = HandTree()
        children = tree.add_children(0, rng.randint(2, 40))
        for child in children:
            tree.set_prior(child, rng.uniform(0.001, 1.0))
            visits = rng.choice([0, 0, 0, 1, 2, 7, 60, 900])
            if visits:
                tree.set_stats(child, visits, visits * rng.random())
        tree.set_stats(0, rng.randint(1, 5000), 0.0)
        parent_visits, _ = tree.stats(0)
        tree.set_stats(0, parent_visits, parent_visits * rng.random())
        c_puct, fpu_reduction = rng.uniform(0.1, 4.0), rng.uniform(0.0, 0.3)
        fpu = 1.0 - tree.stats(0)[1] / parent_visits - fpu_reduction
        scores = {}
        for child in children:
            visits, value_sum = tree.stats(child)
            q = value_sum / visits if visits else fpu
            scores[child] = puct(q, tree.prior(child), parent_visits, visits, c_puct)
        chosen = tree.select_puct(0, c_puct, fpu_reduction)
        assert chosen is not None and scores[chosen] >= max(scores.values()) - 1e-12


def test_puct_tries_the_unvisited_high_prior_child_first() -> None:
    tree = HandTree()
    low, high, middle = tree.add_children(0, 3)
    tree.set_prior(low, 0.1)
    tree.set_prior(high, 0.7)
    tree.set_prior(middle, 0.2)
    tree.set_stats(0, 1, 0.5)
    assert tree.select_puct(0, 1.0, 0.0) == high
    tree.backpropagate(high, 0.5)
    # high visited once: 0.5 + 0.7 * sqrt(2) / 2 = 0.995 beats middle's 0.5 + 0.2 * sqrt(2) = 0.783.
    assert tree.select_puct(0, 1.0, 0.0) == high
    # Unlike UCB1, which takes every unvisited child before any twice, in generation order.
    assert tree.select(0, 1.0) == low


def test_first_play_urgency() -> None:
    tree = HandTree()
    a, b = tree.add_children(0, 2)
    tree.set_prior(a, 0.5)
    tree.set_prior(b, 0.5)
    # The parent's mean for its own mover is 0.4, so 0.6 for the side choosing here.
    tree.set_stats(0, 10, 4.0)
    tree.set_stats(a, 9, 9 * 0.55)              # a little below the parent's mean
    # b is unvisited: valued 0.6 - reduction.  No reduction: 0.6 + 0.5 * sqrt(10) * 0.1 > a's
    # 0.55 + 0.5 * sqrt(10) * 0.1 / 10; a reduction of 0.3 sends the search back to a.
    assert tree.select_puct(0, 0.1, 0.0) == b
    assert tree.select_puct(0, 0.1, 0.3) == a
    # A large constant outweighs the doubt: the unvisited child gets its try.
    assert tree.select_puct(0, 5.0, 0.3) == b


def test_puct_never_picks_a_proven_loss_and_takes_a_proven_win() -> None:
    tree = HandTree()
    a, b, c = tree.add_children(0, 3)
    for node, prior in ((a, 0.8), (b, 0.1), (c, 0.1)):
        tree.set_prior(node, prior)
    tree.set_stats(0, 5, 2.5)
    tree.prove(a, "loss", 2)
    assert tree.select_puct(0, 1.0, 0.0) in (b, c)
    tree.set_stats(b, 3, 1.5)
    tree.prove(c, "win", 0)
    assert tree.select_puct(0, 1.0, 0.0) == c
    assert tree.proven(0) == ("loss", 1)


# ---------------------------------------------------------------- searched leaves

def test_a_searched_leaf_proves_a_mate_in_fewer_playouts() -> None:
    """Depth-2 leaves see a mate behind a quiet move; quiescence leaves must build it in the tree.
    Both prove a forced mate here; the searched leaves need far fewer playouts for it.  The solver
    stops at the first mate it proves, so the distance may be 3 (Re4+) beside the quiet mate in 2.
    The settings keep the quiet move hard to find: c 1.0 (a wider c builds the mate in the tree
    sooner), the same depth everywhere (no deeper leaves near the root), temperature 1, the hand-set
    prior weights (the fitted ones find the quiet king move at once) and no refreshes (a refresh's
    depth-2 search of the root finds the quiet move for quiescence leaves too)."""
    proofs = {}
    for depth in (0, 2):
        s = searcher(depth, c_puct=1.0, leaf_depth_root=0, prior_temperature=1.0)
        s.configure(fitted_priors=False, refresh_priors=False)
        result = s.search(Position(QUIET_MATE_IN_2), SearchLimits(nodes=3000))
        assert result.score[0] == "mate" and 2 <= result.score[1] <= 3 and s.stop_reason == "proven"
        # Every reply to the first move still loses to a forced mate, one move sooner (alpha-beta checks).
        board = chess.Board(QUIET_MATE_IN_2)
        board.push_uci(result.best_move)
        for reply in list(board.legal_moves):
            board.push(reply)
            check = AlphaBetaSearcher(hash_mb=8).search(Position(board.fen()), SearchLimits(depth=8))
            assert check.score[0] == "mate" and 0 < check.score[1] <= result.score[1] - 1, (reply, check.score)
            board.pop()
        proofs[depth] = s.playouts
    assert proofs[2] * 4 < proofs[0], proofs


def _after(board: chess.Board, reply: chess.Move) -> list[chess.Board]:
    """The positions after `reply` and each answer to it."""
    after = board.copy()
    after.push(reply)
    out = []
    for answer in list(after.legal_moves):
        child = after.copy()
        child.push(answer)
        out.append(child)
    return out


@pytest.mark.parametrize("depth", [0, 2])
def test_both_leaves_win_the_pinned_queen_at_few_playouts(depth: int) -> None:
    # With the evaluation's threat terms and c_puct 1.0 the quiescence leaf finds it as soon as
    # the searched one; a greedier c_puct needed far more playouts.
    result = searcher(depth).search(Position(PIN_WINS_THE_QUEEN), SearchLimits(nodes=320))
    assert result.best_move == "d3b5"


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_every_leaf_depth_takes_the_hanging_queen(depth: int) -> None:
    result = searcher(depth).search(Position(HANGING_QUEEN), SearchLimits(nodes=400))
    assert result.best_move == "c1g5"


def test_reported_nodes_count_the_leaves_alpha_beta_nodes() -> None:
    per_playout = {}
    for depth in (0, 2):
        s = searcher(depth, leaf_depth_root=0)
        s.configure(deep_root_refresh=False)    # the root's deeper refreshes would swamp the leaves' nodes
        result = s.search(Position(HANGING_QUEEN), SearchLimits(nodes=300))
        assert s.playouts == 300
        per_playout[depth] = result.nodes / s.playouts
    assert per_playout[0] > 1.0
    assert per_playout[2] > 2 * per_playout[0]


def test_deeper_leaves_near_the_root() -> None:
    """leaf_depth_root searches the leaves next to the root deeper (more nodes per playout, the
    same capture found), and never shallower than leaf_depth: below it, the tree is unchanged."""
    def run(**settings: int) -> tuple[str, int]:
        s = searcher(**settings)    # type: ignore[arg-type]
        result = s.search(Position(HANGING_QUEEN), SearchLimits(nodes=300))
        assert s.playouts == 300
        return result.best_move, result.nodes

    plain, rooted = run(leaf_depth=0, leaf_depth_root=0), run(leaf_depth=0, leaf_depth_root=3)
    assert plain[0] == rooted[0] == "c1g5"
    assert rooted[1] > plain[1]
    assert run(leaf_depth=2, leaf_depth_root=1) == run(leaf_depth=2, leaf_depth_root=0)


def test_uct_selection_still_plays() -> None:
    s = searcher(2, selection="uct")
    assert s.search(Position(HANGING_QUEEN), SearchLimits(nodes=500)).best_move == "c1g5"
    assert s.search(Position(QUIET_MATE_IN_2), SearchLimits(nodes=3000)).score == ("mate", 2)


def test_bad_settings_are_refused() -> None:
    s = MCTSSearcher()
    for name, value in (("leaf_depth", 9), ("leaf_depth", -1), ("leaf_depth_root", 9), ("selection", "ucb"),
                        ("value_model", "elo")):
        with pytest.raises(ValueError):
            setattr(s, name, value)
    s.selection = " UCT "
    s.value_model = "Logistic"
    assert (s.selection, s.value_model) == ("uct", "logistic")


# ---------------------------------------------------------------- the value model

def test_the_value_model_is_the_fitted_wdl_models_expected_score() -> None:
    for material in (10, 30, 58, 78, 90):
        for cp in (-800, -150, 0, 35, 100, 400):
            win, draw, _ = wdl_probabilities(cp, material)
            assert win_probability(cp, "wdl", material) == pytest.approx(win + draw / 2, abs=1e-9)
    assert win_probability(0, "logistic", 50) == pytest.approx(0.5)
    assert win_probability(400, "logistic", 50) == pytest.approx(10 / 11)
    # Steeper than the Elo curve with all the pieces on, flatter in an endgame.
    assert win_probability(100, "wdl", 78) > win_probability(100, "logistic", 78) > win_probability(100, "wdl", 20)


def test_reports_read_the_value_back_through_the_same_curve() -> None:
    for model in ("wdl", "logistic"):
        for cp in (-600, -120, 0, 45, 300):
            assert abs(score_of_probability(win_probability(cp, model, 60), model, 60) - cp) <= 1
    assert score_of_probability(1.0, "wdl", 60) == 9999


def test_a_mate_found_in_a_leaf_is_near_certain() -> None:
    # Ra8 is mate at once: the leaf's search needs no tree to value the position before it.
    s = searcher(1)
    result = s.search(Position("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"), SearchLimits(nodes=2))
    assert result.best_move == "a1a8"


# ---------------------------------------------------------------- the stop rule

def test_one_winning_capture_is_searched_until_the_soft_limit() -> None:
    """Under a clock, nothing ends a search before its soft limit, not even a position with one
    winning capture."""
    s = searcher(0)
    result = s.search(Position(HANGING_QUEEN), SearchLimits(wtime=20000, btime=20000))
    assert result.best_move == "c1g5"
    assert s.stop_reason == "time"


@pytest.mark.serial(cores=1)
def test_movetime_is_used_to_the_end() -> None:
    s = searcher(0)
    s.configure(visit_share_time=False)
    s.search(Position(HANGING_QUEEN), SearchLimits(movetime=300))
    assert s.stop_reason == "time"
    s.configure()           # visit_share_time on (the default): however settled, movetime is all used
    assert s.visit_share_time
    s.search(Position(HANGING_QUEEN), SearchLimits(movetime=300))
    assert s.stop_reason == "time" and s.time_factor == 1.0


def test_the_root_refresh_records_its_best_move() -> None:
    """The root is first refreshed at 16 visits: before that there is no root search move; after
    it, the move of the root's search, which sees the pin that wins the queen."""
    s = searcher(reuse_tree=False)
    s.search(Position(PIN_WINS_THE_QUEEN), SearchLimits(nodes=8))
    assert s.root_search_move is None
    s.search(Position(PIN_WINS_THE_QUEEN), SearchLimits(nodes=200))
    assert s.root_search_move == "d3b5"


def most_visited(s: MCTSSearcher) -> str:
    children = s.root_children()
    return max(children, key=lambda child: child["visits"])["move"]


def test_the_root_search_keeps_its_depth_and_score() -> None:
    """The root's latest refresh is kept whole: its move, its depth and its score, for the side
    to move.  The pin wins back the queen for a bishop (about level: every other move stays a
    queen for a bishop down); the hanging queen is won outright."""
    s = searcher(reuse_tree=False)
    s.search(Position(PIN_WINS_THE_QUEEN), SearchLimits(nodes=8))
    assert s.root_search is None
    s.search(Position(PIN_WINS_THE_QUEEN), SearchLimits(nodes=200))
    move, depth, score = s.root_search
    assert move == s.root_search_move == "d3b5"
    assert 5 <= depth <= 10 and -150 < score < 150
    s.search(Position(HANGING_QUEEN), SearchLimits(nodes=200))
    move, depth, score = s.root_search
    assert move == "c1g5" and score > 600


def test_verify_favourite_leaves_a_favourite_the_root_search_shares() -> None:
    s = searcher(reuse_tree=False)
    result = s.search(Position(HANGING_QUEEN), SearchLimits(nodes=2000))
    assert result.best_move == s.root_search_move == "c1g5"
    assert verify_favourite(s) == (None, "c1g5")


# Positions from the games against alpha-beta (MCTS to move) where, after `nodes` playouts, the
# tree's favourite is not the root search's move and an alpha-beta search as deep refutes it.
# They were found before singular extensions, which change the root search's tree: the test
# searches as it did then (the switch off), since what it checks is the verification itself.
# The first was found again with the WDL model refitted to kestrel-8 (from mc-vs-ab-k8's games),
# which changes the tree's values and so which favourites there are to refute.
REFUTED_FAVOURITES = [
    ("1k6/1p4pp/1npb1r2/6q1/p2Pp3/P1N1PbPQ/BPPB3P/5RK1 w - - 7 26", 1000),
    ("r2qk2r/p2npp2/1p3b2/1B1Q3p/P2pN1b1/2P1P3/1P3PP1/R3K1NR b KQkq - 1 13", 1000),
]


@pytest.mark.parametrize(("fen", "nodes"), REFUTED_FAVOURITES)
def test_verify_favourite_overrules_a_favourite_the_root_search_refutes(fen: str, nodes: int) -> None:
    """The check searches the favourite as deep as the root's search, finds it more than the
    margin below that search's score and plays the searched move; a fresh alpha-beta search of
    the favourite, as deep, agrees that it is that much worse."""
    s = searcher(reuse_tree=False)
    s.configure(singular_extension=False)
    result = s.search(Position(fen), SearchLimits(nodes=nodes))
    searched, depth, score = s.root_search
    assert result.best_move == most_visited(s) != searched
    assert verify_favourite(s) == ("overruled", searched)
    board = chess.Board(fen)
    board.push_uci(result.best_move)
    checker = AlphaBetaSearcher(hash_mb=16)
    checker.configure(singular_extension=False)
    check = checker.search(Position(board.fen()), SearchLimits(depth=depth - 1))
    assert check.score[0] == "cp" and -check.score[1] < score - VERIFY_MARGIN_CP


def test_verified_move_plays_what_the_check_decided() -> None:
    """Under a clock, with the switch on (the default): a favourite overruled gives way to the
    root search's move, reported with that search's score; one kept (or not checked) is
    played.  Off, nothing is checked."""
    assert DEFAULT_VERIFIED_MOVE is True
    for fen, _ in REFUTED_FAVOURITES:
        s = searcher(reuse_tree=False)
        s.configure(verified_move=False)
        s.search(Position(fen), SearchLimits(wtime=3000, btime=3000, winc=50, binc=50))
        assert s.verification is None
        s.configure()
        assert s.verified_move is True
        result = s.search(Position(fen), SearchLimits(wtime=3000, btime=3000, winc=50, binc=50))
        if s.verification == "overruled":
            assert result.best_move == s.root_search_move != most_visited(s)
            # The score is the root search's, which chose the move, not the tree's few visits of it.
            assert result.score == ("cp", s.root_search[2]) and result.value == s.root_search[2]
        else:
            assert result.best_move == most_visited(s)
            assert s.verification in ("kept", "cut off") or s.root_search_move in (None, result.best_move)


# Rook against king: won, and every sensible move's win probability is near 1.
ROOK_ENDINGS = ("8/8/6K1/8/3k4/8/8/7R w - - 0 1", "8/5K2/8/8/6k1/8/R7/8 w - - 0 1", "8/8/2k5/8/8/8/6K1/7R w - - 0 1")


def test_decisive_root_move_plays_the_root_searchs_move_in_a_won_position() -> None:
    """With `decisive_root_move`, whatever ends the search (here a node limit): where the root's
    search scores a win and prefers another move than the tree's favourite, its move is played
    with its score; off, the favourite.  Not at an ordinary score (the start position)."""
    assert DEFAULT_DECISIVE_ROOT_MOVE is True
    decided = 0
    for fen in ROOK_ENDINGS:
        s = searcher(reuse_tree=False)
        s.set_network(builtin_network())
        s.configure()
        assert s.decisive_root_move is True
        result = s.search(Position(fen), SearchLimits(nodes=20000))
        searched, _, score = s.root_search
        if s.verification == "decisive":
            decided += 1
            assert score >= DECISIVE_SCORE_CP
            assert result.best_move == searched != most_visited(s)
            assert result.score == ("cp", score) and result.value == score
        else:
            assert result.best_move == most_visited(s) == searched
        s.configure(decisive_root_move=False)
        result = s.search(Position(fen), SearchLimits(nodes=20000))
        assert result.best_move == most_visited(s) and s.verification != "decisive"
    assert decided >= 1
    s = searcher(reuse_tree=False)
    s.configure(decisive_root_move=True)
    s.search(Position(), SearchLimits(nodes=20000))
    assert s.root_search[2] < DECISIVE_SCORE_CP and s.verification is None


@pytest.mark.serial(cores=1)
def test_visit_share_time_scales_the_soft_limit_by_the_node_share_rule() -> None:
    """With visit_share_time (the default) the soft limit follows the most visited root move's
    share of the playouts, by the time manager's node-share rule: one winning capture that takes
    nearly all of them shrinks it; off, the limit is as planned."""
    s = searcher(0)
    s.configure(visit_share_time=False)
    s.search(Position(HANGING_QUEEN), SearchLimits(wtime=6000, btime=6000))
    assert s.time_factor == 1.0
    s.configure()
    assert DEFAULT_VISIT_SHARE_TIME is True and s.visit_share_time
    result = s.search(Position(HANGING_QUEEN), SearchLimits(wtime=6000, btime=6000))
    assert result.best_move == "c1g5"
    assert best_move_share_factor(1.0) <= s.time_factor < best_move_share_factor(0.9) < 1.0


# ---------------------------------------------------------------- UCI options

def declared_options() -> dict[str, list[str]]:
    """The `uci` answer's option declarations: each option's words after its name."""
    engine, buffer = uci_session()
    declared = {}
    for line in send(engine, buffer, "uci"):
        if line.startswith("option name "):
            name, _, rest = line.removeprefix("option name ").partition(" type ")
            declared[name] = ["type", *rest.split()]
    return declared


def test_every_mcts_setting_is_an_option_of_the_uci_answer() -> None:
    """search/mcts_settings.py's SETTINGS is the one definition of the MCTS options: the `uci`
    answer declares one for each setting and no other, a combo of its choices, a check, or a spin."""
    declared = declared_options()
    assert {name for name in declared if name.startswith("MCTS ")} == {setting.option for setting in SETTINGS}
    for setting in SETTINGS:
        words = declared[setting.option]
        if setting.choices:
            assert words[1] == "combo" and words[5::2] == list(setting.choices), words
            assert words[3] == str(setting.default)
        elif isinstance(setting.default, bool):
            assert words[1:] == ["check", "default", str(setting.default).lower()]
        else:
            assert words[1] == "spin" and words[2::2] == ["default", "min", "max"], words


def test_each_mcts_option_sets_its_setting_over_its_whole_range_through_uci() -> None:
    """Through `setoption` and `go`: each MCTS option at its declared maximum, default and minimum
    (the first other choice, the default, the first choice; the other switch value and the default)
    gives the searcher the setting's high end, default and low end; one past either end of a spin is
    refused with an info string, and a fresh searcher starts at every setting's default."""
    declared = declared_options()
    fresh = MCTSSearcher()
    for setting in SETTINGS:
        assert getattr(fresh, setting.attribute) == pytest.approx(setting.default), setting.attribute
    engine, buffer = uci_session()
    send(engine, buffer, "setoption name SearchMode value MCTS")
    send(engine, buffer, "position startpos")
    rounds: dict[str, dict[Setting, tuple[str, object]]] = {"maximum": {}, "default": {}, "minimum": {}}
    for setting in SETTINGS:
        words = declared[setting.option]
        if setting.choices:
            other = next(choice for choice in setting.choices if choice != setting.default)
            rounds["maximum"][setting] = (other, other)
            rounds["minimum"][setting] = (setting.choices[0], setting.choices[0])
            rounds["default"][setting] = (words[3], setting.default)
        elif isinstance(setting.default, bool):
            rounds["maximum"][setting] = (str(not setting.default).lower(), not setting.default)
            rounds["minimum"][setting] = rounds["maximum"][setting]
            rounds["default"][setting] = (words[3], setting.default)
        else:
            low, high = int(words[5]), int(words[7])
            rounds["maximum"][setting] = (str(high), setting.high)
            rounds["minimum"][setting] = (str(low), setting.low)
            rounds["default"][setting] = (words[3], setting.default)
            for outside in (low - 1, high + 1):
                assert send(engine, buffer, f"setoption name {setting.option} value {outside}") == \
                    [f"info string option {setting.option} must be from {low} to {high}, not {outside}"]
    for name, values in rounds.items():
        for setting, (text, _) in values.items():
            assert send(engine, buffer, f"setoption name {setting.option} value {text}") == [], (name, setting)
        send(engine, buffer, "go nodes 1")
        assert engine._job is not None and engine._job.wait(60)
        mcts = engine._searchers["MCTS"]
        for setting, (_, expected) in values.items():
            assert getattr(mcts, setting.attribute) == pytest.approx(expected), (name, setting.attribute)


def test_the_readme_rows_of_the_mcts_options_match_the_uci_answer() -> None:
    """The README's option table gives each MCTS option's type, default and range as `uci` declares them."""
    declared = declared_options()
    rows: dict[str, list[str]] = {}
    for line in (REPO_ROOT / "README.md").read_text().splitlines():
        if line.startswith("| `MCTS "):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1:4]
    assert set(rows) == {name for name in declared if name.startswith("MCTS ")}
    for name, (kind, default, values) in rows.items():
        words = declared[name]
        assert (kind, default) == (words[1], words[3]), name
        if kind == "spin":
            assert values == f"{words[5]}-{words[7]}", name
        elif kind == "combo":
            assert values == ", ".join(words[5::2]), name
        else:
            assert values == "true, false", name


def test_mcts_options_reach_the_searcher_and_bad_values_get_an_info_string() -> None:
    engine, buffer = uci_session()
    for line in ("setoption name SearchMode value MCTS", "setoption name MCTS Selection value UCT",
                 "setoption name MCTS CPuct value 1250", "setoption name MCTS FPU Reduction value 40",
                 "setoption name MCTS Prior Temperature value 250", "setoption name MCTS Leaf Depth value 3",
                 "setoption name MCTS Leaf Depth Root value 5",
                 "setoption name MCTS Score Curve value logistic",
                 "setoption name MCTS Recycle value false"):
        assert send(engine, buffer, line) == [], line
    bad = {
        "setoption name MCTS Leaf Depth value 9": "option MCTS Leaf Depth must be from 0 to 8, not 9",
        "setoption name MCTS Leaf Depth Root value -2": "option MCTS Leaf Depth Root must be from 0 to 8, not -2",
        "setoption name MCTS CPuct value -1": "option MCTS CPuct must be from 0 to 10000, not -1",
        "setoption name MCTS Prior Temperature value 0": "option MCTS Prior Temperature must be from 1 to 10000, not 0",
        "setoption name MCTS FPU Reduction value lots":
            "option MCTS FPU Reduction takes an integer from 0 to 1000, not 'lots'",
        "setoption name MCTS Selection value ucb": "option MCTS Selection takes one of puct, uct, not 'ucb'",
        "setoption name MCTS Score Curve value elo": "option MCTS Score Curve takes one of logistic, wdl, not 'elo'",
        "setoption name MCTS Recycle value maybe": "option MCTS Recycle takes true or false, not 'maybe'",
    }
    for line, reason in bad.items():
        assert send(engine, buffer, line) == [f"info string {reason}"], line
    send(engine, buffer, "position startpos")
    send(engine, buffer, "go nodes 200")
    assert engine._job is not None and engine._job.wait(60)
    mcts = engine._searchers["MCTS"]
    assert (mcts.selection, mcts.leaf_depth, mcts.value_model, mcts.recycle) == ("uct", 3, "logistic", False)
    assert mcts.leaf_depth_root == 5
    assert (mcts.c_puct, mcts.fpu_reduction, mcts.prior_temperature) == \
        (pytest.approx(1.25), pytest.approx(0.04), pytest.approx(2.5))
    assert buffer.getvalue().decode().splitlines()[-1].startswith("bestmove ")
    assert not math.isnan(mcts.c_puct)
