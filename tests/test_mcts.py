"""The Monte Carlo tree searcher: legal answers, tactics, the solver, the pool and its limit,
tree reuse, determinism, reports, and UCB1/backpropagation on hand-made trees."""

from __future__ import annotations

import math
import threading
import time

import chess
import pytest
from conftest import BackgroundSearch
from mcts_internals import HandTree, ucb
from mcts_tree_checks import tree_problems

from search.alphabeta_searcher import AlphaBetaSearcher
from search.board import Position
from search.info import Info, InfoString, SearchInfo
from search.limits import SearchLimits
from search.mcts_bench import bench
from search.mcts_searcher import MCTSSearcher
from search.mcts_settings import DEFAULT_VISIT_SHARE_TIME, OWN_SWITCH_DEFAULTS, OWN_SWITCHES

MATE_IN_1 = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"                                        # Ra8#
MATE_IN_2 = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1"             # Nf6+ gxf6 Bxf7#
HANGING_QUEEN = "rnb1kbnr/pppp1ppp/8/4p1q1/3P4/2N5/PPP1PPPP/R1BQKBNR w KQkq - 0 3"         # Bxg5
HANGING_QUEEN_BLACK = "rnbqkb1r/pppp1ppp/5n2/4p3/4P1Q1/8/PPPP1PPP/RNB1KBNR b KQkq - 3 3"     # Nxg4
ONE_MOVE = "k7/8/8/8/8/8/1r6/K7 w - - 0 1"                                                 # Kxb2 only
MIDDLEGAME = "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16"
# What the searcher says once per search when its pool is full, with MCTS Recycle off and on.
FROZEN = InfoString("node pool full, tree stops growing")
RECYCLED = InfoString("node pool full, its least visited subtrees are recycled (a larger Hash keeps more of the tree)")
MODES = ("eval", "playout")


# Random playouts give noisy values: they need more exploration than the tuned default
# for quiescence leaves, or one lucky first playout hides a good move for long.
PLAYOUT_EXPLORATION = 1.0


def searcher(mode: str = "eval", seed: int = 1, hash_mb: int = 16, leaf_depth: int = 0) -> MCTSSearcher:
    """A searcher with the default selection (PUCT); quiescence leaves unless `leaf_depth` says
    otherwise, as these tests were written for them (tests/test_mcts_puct.py has the searched ones)."""
    s = MCTSSearcher(hash_mb=hash_mb)
    s.leaf_mode = mode
    s.leaf_depth = leaf_depth
    s.seed = seed
    if mode == "playout":
        s.exploration = PLAYOUT_EXPLORATION
    return s


def legal(fen: str, move: str) -> bool:
    return chess.Move.from_uci(move) in chess.Board(fen).legal_moves


# ---------------------------------------------------------------- always a legal move

@pytest.mark.parametrize("mode", MODES)
def test_first_playout_gives_a_legal_move(mode: str) -> None:
    for fen in (chess.STARTING_FEN, MIDDLEGAME, HANGING_QUEEN):
        s = searcher(mode)
        result = s.search(Position(fen), SearchLimits(nodes=1))
        assert legal(fen, result.best_move)
        assert s.playouts == 1 and result.nodes >= 1


@pytest.mark.parametrize("mode", MODES)
def test_single_legal_move(mode: str) -> None:
    result = searcher(mode).search(Position(ONE_MOVE), SearchLimits(movetime=200))
    assert result.best_move == "a1b2"


def test_leaves_search_with_the_adopted_techniques() -> None:
    """The leaves' alpha-beta and quiescence searches use what the alpha-beta searcher has
    adopted (so a newly adopted technique reaches them too), in one full window, and without
    correction history and ProbCut (never measured in MCTS) unless they are named."""
    adopted = AlphaBetaSearcher(hash_mb=1).switches
    assert adopted["correction_history"] and adopted["probcut"]
    searcher = MCTSSearcher(hash_mb=1)
    unmeasured = {"correction_history": False, "probcut": False}
    assert searcher.leaf_switches == adopted | {"aspiration": False} | unmeasured
    searcher.configure(correction_history=True, probcut=True)
    assert searcher.leaf_switches == adopted | {"aspiration": False}


def test_configure_switches_the_stop_rule_and_the_leaves() -> None:
    """configure() sets the named switches (the MCTS searcher's own and the leaves' alpha-beta
    techniques), returns every other to its default, and rejects unknown names."""
    s = MCTSSearcher(hash_mb=1)
    default_leaves = s.leaf_switches
    assert s.visit_share_time is DEFAULT_VISIT_SHARE_TIME is True
    s.configure(visit_share_time=False, verified_move=False, null_move=False)
    assert s.visit_share_time is False and s.verified_move is False
    assert s.leaf_switches == default_leaves | {"null_move": False}
    s.configure(aspiration=True)        # the leaves search one full window whatever is asked
    assert s.leaf_switches == default_leaves
    assert s.visit_share_time is True and s.verified_move is True
    with pytest.raises(TypeError, match="no_such_switch"):
        s.configure(no_such_switch=True)
    # Each of the searcher's own switches, flipped, then back to its default.
    s.configure(**{name: not default for name, default in OWN_SWITCH_DEFAULTS.items()})
    assert {name: getattr(s, name) for name in OWN_SWITCHES} == \
        {name: not default for name, default in OWN_SWITCH_DEFAULTS.items()}
    s.configure()
    assert {name: getattr(s, name) for name in OWN_SWITCHES} == OWN_SWITCH_DEFAULTS


def test_search_on_variable_reaches_mcts(monkeypatch: pytest.MonkeyPatch) -> None:
    """KESTREL_SEARCH_ON/OFF (ablation matches) configure the MCTS searcher too; a switch only
    MCTS has is left out of alpha-beta's (so one engine can run both modes), and a name no
    searcher has is still an error."""
    from uci_engine import core

    monkeypatch.setenv(core.SEARCH_ON_VARIABLE, "verified_move")
    monkeypatch.setenv(core.SEARCH_OFF_VARIABLE, "null_move,visit_share_time")
    s = core.new_searcher("MCTS", 1)
    assert s.verified_move is True and s.visit_share_time is False and s.leaf_switches["null_move"] is False
    alphabeta = core.new_searcher("AlphaBeta", 1)
    assert alphabeta.switches == AlphaBetaSearcher(hash_mb=1).switches | {"null_move": False}
    monkeypatch.setenv(core.SEARCH_ON_VARIABLE, "verified_move,no_such_switch")
    for mode in ("MCTS", "AlphaBeta"):
        with pytest.raises(ValueError, match="no_such_switch"):
            core.new_searcher(mode, 1)


@pytest.mark.serial(cores=1)
def test_stop_before_search_still_answers_legally() -> None:
    s = searcher()
    s.arm()
    s.stop()
    start = time.perf_counter()
    result = s.search(Position(MIDDLEGAME), SearchLimits(infinite=True))
    assert time.perf_counter() - start < 1.0
    assert legal(MIDDLEGAME, result.best_move)


def test_stop_ends_an_infinite_search() -> None:
    s = searcher()
    timer = threading.Timer(0.3, s.stop)
    timer.start()
    start = time.perf_counter()
    result = s.search(Position(MIDDLEGAME), SearchLimits(infinite=True))
    timer.join()
    assert 0.25 <= time.perf_counter() - start < 3.0
    assert legal(MIDDLEGAME, result.best_move)
    assert result.nodes > 0


def test_no_legal_move() -> None:
    mated = "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1"
    result = searcher().search(Position(mated), SearchLimits(nodes=100))
    assert result.best_move == "0000" and result.score == ("mate", 0)


@pytest.mark.serial(cores=1)
def test_movetime_is_respected() -> None:
    start = time.perf_counter()
    result = searcher().search(Position(MIDDLEGAME), SearchLimits(movetime=300))
    assert time.perf_counter() - start < 1.5
    assert legal(MIDDLEGAME, result.best_move)


# ---------------------------------------------------------------- tactics and the solver

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", [1, 7, 12345])
def test_mate_in_one(mode: str, seed: int) -> None:
    result = searcher(mode, seed).search(Position(MATE_IN_1), SearchLimits(nodes=5000))
    assert result.best_move == "a1a8"
    assert result.score == ("mate", 1)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", [1, 7, 12345])
def test_mate_in_two_is_proven_and_reported(mode: str, seed: int) -> None:
    reports: list[Info] = []
    result = searcher(mode, seed).search(Position(MATE_IN_2), SearchLimits(nodes=50000), reports.append)
    assert result.best_move == "d5f6"
    assert result.score == ("mate", 2)
    assert result.pv[:3] == ["d5f6", "g7f6", "c4f7"]
    assert reports and isinstance(reports[-1], SearchInfo) and reports[-1].score == ("mate", 2)
    # Proven at once: the search stops when the root's result is known, long before the limit.
    assert result.nodes < 50000


@pytest.mark.parametrize("fen,best", [(HANGING_QUEEN, "c1g5"), (HANGING_QUEEN_BLACK, "f6g4")])
@pytest.mark.parametrize("seed", [1, 99])
def test_takes_a_hanging_queen(fen: str, best: str, seed: int) -> None:
    s = searcher("eval", seed)
    result = s.search(Position(fen), SearchLimits(nodes=10000))
    assert result.best_move == best
    # A queen up is a near-certain win (the centipawns read back depend on the value model).
    value = next(c["value"] for c in s.root_children() if c["move"] == best)
    assert result.score[0] == "cp" and result.score[1] > 200 and value > 0.9


@pytest.mark.parametrize("seed", [1, 99])
def test_random_playouts_take_a_hanging_queen(seed: int) -> None:
    result = searcher("playout", seed).search(Position(HANGING_QUEEN), SearchLimits(nodes=10000))
    assert result.best_move == "c1g5"


def test_stalemate_child_is_a_proven_draw() -> None:
    # Qb6 stalemates; there is no mate in one, so the search runs on.
    fen = "k7/8/8/8/8/8/8/KQ6 w - - 0 1"
    s = searcher()
    result = s.search(Position(fen), SearchLimits(nodes=3000))
    children = {c["move"]: c for c in s.root_children()}
    assert children["b1b6"]["proven"] == "draw"
    assert result.best_move != "b1b6"
    assert result.score[0] == "mate" or result.score[1] > 300


# ---------------------------------------------------------------- the pool

def test_pool_never_grows_past_its_limit() -> None:
    s = searcher(hash_mb=1)
    s.recycle = False
    capacity = s.pool_capacity
    assert 0 < capacity <= (1 << 20) // 32
    reports: list[Info] = []
    result = s.search(Position(MIDDLEGAME), SearchLimits(nodes=60000), reports.append)
    assert s.pool_used <= capacity
    assert s.playouts == 60000          # the search goes on, without growing
    assert result.nodes >= 60000        # (nodes add the quiescence nodes)
    assert FROZEN in reports
    assert sum(1 for r in reports if isinstance(r, InfoString)) == 1
    assert s.hashfull() > 900
    assert legal(MIDDLEGAME, result.best_move)


def test_full_pool_in_an_infinite_search_waits_without_playing_on() -> None:
    """With recycling off, once the tree cannot grow `go infinite` stops its playouts and only
    waits for stop: the playouts at the stop are those of the report sent when the pool filled."""
    s = searcher(hash_mb=1)
    s.recycle = False
    search = BackgroundSearch(s, MIDDLEGAME)
    search.wait_for(FROZEN)
    time.sleep(1.5)         # long enough for a search still playing out to add thousands
    result = search.stop()
    full_at = search.reports.index(FROZEN)
    # The report that said so is followed at once by its lines, whose playouts are the last.
    first_after_full = next(r for r in search.reports[full_at:] if isinstance(r, SearchInfo))
    assert first_after_full.nodes == result.nodes
    assert legal(MIDDLEGAME, result.best_move)


def test_a_full_pool_recycles_its_least_visited_subtrees_and_grows_on() -> None:
    s = searcher(hash_mb=1)
    assert s.recycle                        # the default
    reports: list[Info] = []
    result = s.search(Position(MIDDLEGAME), SearchLimits(nodes=60000), reports.append)
    assert s.playouts == 60000
    assert s.recycles >= 3                  # a 1 MB pool holds about 29,000 nodes
    assert s.pool_used <= s.pool_capacity
    assert tree_problems(s) == []
    assert RECYCLED in reports and sum(1 for r in reports if isinstance(r, InfoString)) == 1
    assert legal(MIDDLEGAME, result.best_move)
    # The recycled search kept expanding: its playouts cost leaf searches (more nodes) where the
    # frozen tree's revisits of the same leaves were answered by the transposition table.
    frozen = searcher(hash_mb=1)
    frozen.recycle = False
    frozen_result = frozen.search(Position(MIDDLEGAME), SearchLimits(nodes=60000))
    assert frozen.recycles == 0
    assert result.nodes > frozen_result.nodes


def test_an_infinite_search_with_a_recycled_pool_plays_on_until_stop() -> None:
    s = searcher(hash_mb=1)
    search = BackgroundSearch(s, MIDDLEGAME)
    search.wait_for(RECYCLED)
    playouts = s.playouts
    time.sleep(0.5)
    assert s.playouts > playouts            # the tree keeps growing: no wait for stop yet
    result = search.stop()
    assert s.stop_reason == "stop" and s.recycles >= 1
    assert tree_problems(s) == []
    assert legal(MIDDLEGAME, result.best_move)


def test_tree_below_the_played_move_is_reused() -> None:
    s = searcher()
    position = Position()
    first = s.search(position, SearchLimits(nodes=20000))
    position.push(first.best_move)
    position.push(first.pv[1])
    s.search(position, SearchLimits(nodes=1000))
    total = sum(c["visits"] for c in s.root_children())
    assert total > 1000                 # visits from the first search were kept
    s.clear()
    s.search(position, SearchLimits(nodes=1000))
    assert sum(c["visits"] for c in s.root_children()) <= 1000


def test_same_seed_same_search() -> None:
    runs = []
    for _ in range(2):
        s = searcher("playout", seed=42)
        result = s.search(Position(MIDDLEGAME), SearchLimits(nodes=3000))
        runs.append((result.best_move, result.pv, s.root_children()))
    assert runs[0] == runs[1]
    other = searcher("playout", seed=43)
    other.search(Position(MIDDLEGAME), SearchLimits(nodes=3000))
    assert other.root_children() != runs[0][2]


# ---------------------------------------------------------------- reports and the API

def test_reports_match_the_alpha_beta_searcher() -> None:
    s = searcher()
    s.multipv = 3
    reports: list[Info] = []
    s.search(Position(MIDDLEGAME), SearchLimits(nodes=5000), reports.append)
    lines = [r for r in reports if isinstance(r, SearchInfo)]
    assert [r.multipv for r in lines[-3:]] == [1, 2, 3]
    assert len({r.pv[0] for r in lines[-3:]}) == 3
    alpha_beta: list[Info] = []
    AlphaBetaSearcher().search(Position(MIDDLEGAME), SearchLimits(depth=2), alpha_beta.append)
    # Both searchers report through the same record type.
    assert type(lines[-1]) is type(alpha_beta[-1])
    # `go nodes` counts playouts; the reported nodes add the leaves' alpha-beta nodes.
    assert s.playouts == 5000 and lines[-1].nodes > 5000 and lines[-1].bound is None
    assert all(legal(MIDDLEGAME, r.pv[0]) for r in lines)


def test_options_are_checked() -> None:
    s = MCTSSearcher()
    with pytest.raises(ValueError):
        s.leaf_mode = "neural"
    s.leaf_mode = "Playout"
    assert s.leaf_mode == "playout"
    s.exploration = 0.7
    assert s.exploration == pytest.approx(0.7)


# ---------------------------------------------------------------- hand-made trees

def test_ucb1_formula() -> None:
    assert ucb(100, 10, 6.0, 1.4) == pytest.approx(0.6 + 1.4 * math.sqrt(math.log(100) / 10))
    assert ucb(100, 0, 0.0, 1.4) == math.inf
    assert ucb(100, 10, 6.0, 0.0) == pytest.approx(0.6)


def test_selection_on_a_hand_made_tree() -> None:
    tree = HandTree()
    a, b, c = tree.add_children(0, 3)
    tree.set_stats(0, 30, 0.0)
    tree.set_stats(a, 20, 12.0)     # mean 0.60, often tried
    tree.set_stats(b, 8, 4.0)       # mean 0.50, rarely tried
    tree.set_stats(c, 2, 0.2)       # mean 0.10
    # With no exploration the best mean wins; with a large constant the least tried does.
    assert tree.select(0, 0.0) == a
    assert tree.select(0, 10.0) == c
    # At C = 1: a 0.60 + sqrt(ln 30 / 20) = 1.013, b 0.50 + sqrt(ln 30 / 8) = 1.147, c 0.10 + 1.304 = 1.404.
    assert tree.select(0, 1.0) == c
    assert tree.select(0, 0.5) == b      # a 0.807, b 0.823, c 0.752
    d, = tree.add_children(c, 1)
    assert tree.select(c, 1.0) == d      # unvisited first


def test_backpropagation_flips_the_view_each_ply() -> None:
    tree = HandTree()
    a, b = tree.add_children(0, 2)
    a1, a2 = tree.add_children(a, 2)
    tree.backpropagate(a1, 1.0)          # the player who moved into a1 won
    tree.backpropagate(a2, 0.25)
    assert tree.stats(a1) == (1, 1.0)
    assert tree.stats(a2) == (1, 0.25)
    assert tree.stats(a) == (2, 0.0 + 0.75)
    assert tree.stats(0) == (2, 1.0 + 0.25)
    assert tree.stats(b) == (0, 0.0)


def test_solver_proves_up_the_tree() -> None:
    tree = HandTree()
    a, b = tree.add_children(0, 2)
    a1, a2 = tree.add_children(a, 2)
    b1, = tree.add_children(b, 1)
    # b1 is a mate delivered by the side to move at b: b is lost for whoever moved into it.
    tree.prove(b1, "win", 0)
    assert tree.proven(b) == ("loss", 1)
    assert tree.proven(0) == (None, 0)   # a is still open
    assert tree.select(0, 1.0) == a      # the proven loss is never chosen again
    tree.prove(a1, "draw")
    assert tree.proven(a) == (None, 0)
    tree.prove(a2, "loss", 2)
    assert tree.proven(a) == ("draw", 0)  # best reply at a is the draw
    assert tree.proven(0) == ("draw", 0)
    assert tree.best_child(0) == a


def test_solver_mate_distances() -> None:
    tree = HandTree()
    a, b = tree.add_children(0, 2)
    tree.prove(a, "loss", 4)
    tree.prove(b, "loss", 2)
    # Every move at the root loses: the root is won for the player who moved into it, by the longest line.
    assert tree.proven(0) == ("win", 5)
    assert tree.best_child(0) == a       # resist longest


def test_keep_subtree_compacts_the_pool() -> None:
    tree = HandTree()
    a, b = tree.add_children(0, 2)
    b1, b2 = tree.add_children(b, 2)
    a1, = tree.add_children(a, 1)
    b11, = tree.add_children(b1, 1)
    tree.backpropagate(b11, 1.0)
    assert tree.keep_subtree(b) == 4     # b, b1, b2, b11
    assert tree.parent(0) is None
    assert tree.stats(0) == (1, 1.0) and tree.stats(1) == (1, 0.0)
    assert tree.parent(1) == 0 and tree.parent(2) == 0 and tree.parent(3) == 1
    assert tree.stats(3) == (1, 1.0)


def test_recycling_drops_the_children_of_the_least_visited_nodes() -> None:
    tree = HandTree()
    a, b = tree.add_children(0, 2)
    a1, a2 = tree.add_children(a, 2)
    b1, b2, b3 = tree.add_children(b, 3)
    a11, a12 = tree.add_children(a1, 2)
    for node, visits in ((0, 20), (a, 15), (b, 3), (a1, 9), (a2, 5), (b1, 1), (b2, 1), (a11, 4), (a12, 4)):
        tree.set_stats(node, visits, visits / 2)
    assert tree.keep_subtree(0) == 10                  # the whole tree, nothing moves
    # Keeping at most 8 nodes: visit threshold 4 drops b's children (b: 3 visits) and nobody else's.
    threshold, used = tree.recycle(8)
    assert (threshold, used) == (4, 7)
    assert tree.children(0) == [1, 2]
    new_a, new_b = tree.children(0)
    assert tree.stats(new_b) == (3, 1.5) and tree.children(new_b) == []
    new_a1, new_a2 = tree.children(new_a)
    assert tree.stats(new_a1) == (9, 4.5) and tree.stats(new_a2) == (5, 2.5)
    assert [tree.stats(n) for n in tree.children(new_a1)] == [(4, 2.0), (4, 2.0)]
    for node in range(used):
        assert all(tree.parent(child) == node for child in tree.children(node))
    # A tighter target raises the threshold (8 keeps a's children, 16 drops them), never the root's.
    threshold, used = tree.recycle(3)
    assert (threshold, used) == (16, 3) and tree.children(0) == [1, 2] and tree.children(1) == []
    assert tree.stats(1) == (15, 7.5)


def test_depth_limit_ends_even_when_the_tree_cannot_grow() -> None:
    s = searcher(hash_mb=1)
    result = s.search(Position(MIDDLEGAME), SearchLimits(depth=60))
    assert legal(MIDDLEGAME, result.best_move)
    result = searcher().search(Position(MIDDLEGAME), SearchLimits(depth=2))
    assert result.depth >= 2


def test_bench_reports_both_leaf_modes() -> None:
    lines: list[str] = []
    rates = bench(100, lines.append, positions=[MIDDLEGAME, HANGING_QUEEN])
    assert set(rates) == {"eval-d0-r4", "eval-d0", "eval-d1", "eval-d2", "playout"}
    assert all(rate > 0 for rate in rates.values())
    assert len(lines) == 5
