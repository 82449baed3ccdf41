"""The alpha-beta searcher: values against the reference searchers, mates, draws,
legality of the answer under every limit, and the GIL released while it thinks."""

from __future__ import annotations

import random
import threading
import time

import chess
import pytest

from search.alphabeta_searcher import AlphaBetaSearcher
from search.board import Position
from search.info import Info, SearchInfo
from search.limits import SearchLimits
from search.reference import alphabeta_value, minimax_value
from search.timeman import time_budget


def random_positions(count: int, seed: int, min_plies: int = 4, max_plies: int = 70) -> list[str]:
    """FENs reached by random play from the start (games not yet over)."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        board = chess.Board()
        for _ in range(rng.randint(min_plies, max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            # Prefer captures now and then, so positions with tension and few pieces occur.
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.3 else moves))
        if not board.is_game_over(claim_draw=True):
            fens.append(board.fen())
    return fens


REFERENCE_FENS = random_positions(50, seed=2026)


# Every switch of AlphaBetaSearcher.configure that changes a fixed-depth search
# (node_time_management acts on the clock and has a test of its own).
TECHNIQUES = ["tt_cutoffs", "null_move", "late_move_reductions", "internal_reduction", "reverse_futility",
              "futility", "late_move_pruning", "see_pruning", "check_extension", "quiescence", "quiescence_tt",
              "aspiration", "singular_extension", "draw_scaling", "kbn_mating", "correction_history",
              "probcut"]
# Switches of candidates, off by default while their SPRT runs (deleted or adopted after it).
CANDIDATES: list[str] = []


@pytest.fixture(scope="module")
def plain_searcher() -> AlphaBetaSearcher:
    """The main searcher with every pruning, reduction, extension and the quiescence off."""
    searcher = AlphaBetaSearcher(hash_mb=8)
    searcher.configure(**{name: False for name in TECHNIQUES})
    return searcher


# The deepest comparison in five shares of ten positions: its full-width minimax is the suite's
# longest computation, and shares spread it over the workers.
MINIMAX_CASES = [(depth, 0, len(REFERENCE_FENS)) for depth in (1, 2, 3)] + \
                [(4, first, first + 10) for first in range(0, len(REFERENCE_FENS), 10)]


@pytest.mark.slow
@pytest.mark.parametrize(("depth", "first", "end"), MINIMAX_CASES,
                         ids=[f"depth{depth}-fens{first}-{end - 1}" for depth, first, end in MINIMAX_CASES])
def test_alphabeta_equals_minimax_with_fewer_nodes(depth: int, first: int, end: int,
                                                   plain_searcher: AlphaBetaSearcher) -> None:
    minimax_nodes = alphabeta_nodes = 0
    for fen in REFERENCE_FENS[first:end]:
        position = Position(fen)
        value_mm, nodes_mm = minimax_value(position, depth)
        value_ab, nodes_ab = alphabeta_value(position, depth)
        assert value_ab == value_mm, fen
        assert nodes_ab <= nodes_mm, fen
        minimax_nodes += nodes_mm
        alphabeta_nodes += nodes_ab
        plain_searcher.clear()
        result = plain_searcher.search(position, SearchLimits(depth=depth))
        assert result.value == value_mm, f"PVS with pruning off differs from minimax in {fen}"
        assert result.depth == depth
    if depth >= 2:
        assert alphabeta_nodes < minimax_nodes / 2, (alphabeta_nodes, minimax_nodes)


@pytest.mark.slow
def test_each_technique_has_its_own_switch() -> None:
    """Switching one technique off (or a candidate on) changes the tree (so each switch is wired, and ablation
    matches measure what they claim to), and the answer stays a legal move."""
    fens = REFERENCE_FENS[:12] + ["r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
                                  "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
                                  "8/8/4k3/5b2/8/8/3RK3/8 w - - 0 1",     # rook against bishop: draw_scaling
                                  "8/8/8/4k3/8/8/8/KBN5 w - - 0 1"]       # KBN v K: kbn_mating

    def total_nodes(**switched_off: bool) -> int:
        searcher = AlphaBetaSearcher(hash_mb=8)
        searcher.configure(**switched_off)
        total = 0
        for fen in fens:
            searcher.clear()
            result = searcher.search(Position(fen), SearchLimits(depth=9))
            assert result.best_move in {m.uci() for m in chess.Board(fen).legal_moves}
            total += result.nodes
        return total

    full = total_nodes()
    for name in TECHNIQUES:
        assert total_nodes(**{name: False}) != full, f"switching off {name} changed nothing"
    for name in CANDIDATES:
        assert total_nodes(**{name: True}) != full, f"switching on the candidate {name} changed nothing"
    with pytest.raises(TypeError):
        AlphaBetaSearcher().configure(no_such_technique=False)


def test_configure_starts_from_the_adopted_techniques() -> None:
    """The switches are the ones the tests name, every adopted one on by default and every
    candidate off (a technique that lost its games is deleted, not left off), and configure()
    sets the named switches and returns every other one to its default."""
    searcher = AlphaBetaSearcher(hash_mb=1)
    adopted = searcher.switches
    assert set(adopted) == set(TECHNIQUES) | {"node_time_management"} | set(CANDIDATES)
    assert all(on != (name in CANDIDATES) for name, on in adopted.items())
    searcher.configure(null_move=False, aspiration=False)
    assert searcher.switches == adopted | {"null_move": False, "aspiration": False}
    searcher.configure()
    assert searcher.switches == adopted


@pytest.mark.parametrize("node_time", [True, False], ids=["node-time", "no-node-time"])
@pytest.mark.parametrize("threads", [pytest.param(1, marks=pytest.mark.serial(cores=1)),
                                     pytest.param(2, marks=pytest.mark.serial)])
def test_clock_searches_with_and_without_node_time_management(threads: int, node_time: bool) -> None:
    """Clock searches (where node-based time management acts) return a legal move from a
    completed iteration, with the switch on (the default) and off, with one thread and with a helper."""
    searcher = AlphaBetaSearcher(hash_mb=8)
    searcher.configure(node_time_management=node_time)
    searcher.threads = threads
    for fen in REFERENCE_FENS[:4]:
        result = searcher.search(Position(fen), SearchLimits(wtime=2_000, btime=2_000, winc=20, binc=20))
        assert result.best_move in {m.uci() for m in chess.Board(fen).legal_moves}
        assert result.depth >= 1


# Mate distances confirmed with Stockfish 15.1 (`go depth 22` reports `score mate N`).
MATES = [
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1),
    ("6rk/6pp/7N/8/8/8/6PP/1Q4K1 w - - 0 1", 1),
    ("r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 1", 2),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2),
    ("4k3/R7/7K/8/7R/8/8/8 w - - 0 1", 2),
    ("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3),
    ("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3),
    ("2k5/8/8/8/8/8/8/R3K2R w KQ - 0 1", 3),
    ("8/1R6/8/8/1RK5/7k/8/8 w - - 0 1", 3),
    ("8/8/8/1R6/8/2k2K2/R7/8 w - - 0 1", 4),
]


@pytest.mark.parametrize("fen,moves", MATES)
def test_finds_forced_mates_with_their_distance(fen: str, moves: int) -> None:
    """The pruning, reductions and extensions never lose a forced mate or its distance."""
    searcher = AlphaBetaSearcher(hash_mb=16)
    result = searcher.search(Position(fen), SearchLimits(depth=2 * moves + 6))
    assert result.score == ("mate", moves)
    # The move really mates in that many: play the PV out with python-chess.
    board = chess.Board(fen)
    for uci in result.pv[: 2 * moves - 1]:
        board.push_uci(uci)
    assert board.is_checkmate(), result.pv
    # And the defender, after the mating side's first move, sees its own mate coming.
    if moves >= 2:
        after = Position(fen)
        after.push(result.best_move)
        defence = AlphaBetaSearcher(hash_mb=16).search(after, SearchLimits(depth=2 * moves + 4))
        assert defence.score == ("mate", -(moves - 1))


def test_go_mate_stops_once_the_mate_is_found() -> None:
    result = AlphaBetaSearcher().search(Position("4k3/R7/7K/8/7R/8/8/8 w - - 0 1"), SearchLimits(mate=2))
    assert result.score == ("mate", 2)
    assert result.depth <= 10


@pytest.mark.slow
def test_never_allows_a_mate_in_one_it_could_avoid() -> None:
    """In random positions, after Kestrel's move the opponent never has a mate in one
    when some other move would have prevented it."""
    checked = 0
    searcher = AlphaBetaSearcher(hash_mb=8)
    for fen in random_positions(600, seed=7, min_plies=20, max_plies=120):
        board = chess.Board(fen)

        def allows_mate(move: chess.Move, board: chess.Board = board) -> bool:
            board.push(move)
            try:
                for reply in list(board.legal_moves):
                    board.push(reply)
                    mate = board.is_checkmate()
                    board.pop()
                    if mate:
                        return True
                return False
            finally:
                board.pop()

        verdicts = [allows_mate(m) for m in board.legal_moves]
        if not any(verdicts) or all(verdicts):
            continue
        checked += 1
        result = searcher.search(Position(fen), SearchLimits(depth=4))
        assert not allows_mate(chess.Move.from_uci(result.best_move)), fen
    assert checked >= 10, "too few positions with a mate threat were met"


def test_takes_the_threefold_repetition_when_lost() -> None:
    # K+Q against K; the history makes Kh8 the third occurrence of a position.
    position = Position("7k/8/8/8/8/8/8/K2Q4 w - - 0 1")
    for uci in ["d1d2", "h8g8", "d2d1", "g8h8", "d1d2", "h8g8", "d2d1"]:
        position.push(uci)
    result = AlphaBetaSearcher().search(position, SearchLimits(depth=8))
    assert result.best_move == "g8h8"
    assert result.score == ("cp", 0)


def test_avoids_the_threefold_repetition_when_winning() -> None:
    position = Position("7k/8/8/8/8/8/3Q4/K7 b - - 0 1")
    for uci in ["h8g8", "d2d1", "g8h8", "d1d2", "h8g8", "d2d1", "g8h8"]:
        position.push(uci)
    result = AlphaBetaSearcher().search(position, SearchLimits(depth=8))
    assert result.best_move != "d1d2"
    assert result.score[0] == "mate" or result.score[1] > 500


def test_fifty_move_rule_is_a_draw_in_the_search() -> None:
    # Black is a queen down, but every move reaches the hundredth half-move.
    result = AlphaBetaSearcher().search(Position("7k/8/8/8/8/8/8/K2Q4 b - - 99 80"), SearchLimits(depth=6))
    assert result.score == ("cp", 0)
    # One half-move earlier, the same position is simply lost.
    result = AlphaBetaSearcher().search(Position("7k/8/8/8/8/8/8/K2Q4 b - - 60 80"), SearchLimits(depth=6))
    assert result.score[0] == "mate" or result.score[1] < -500


def test_stalemate_and_insufficient_material() -> None:
    searcher = AlphaBetaSearcher()
    # Qb6 would stalemate; Qb7 mates.
    result = searcher.search(Position("k7/8/2K5/8/8/8/8/1Q6 w - - 0 1"), SearchLimits(depth=6))
    assert result.best_move == "b1b7" and result.score == ("mate", 1)
    # The side to move is stalemated: no move, a draw.
    result = searcher.search(Position("k7/8/1QK5/8/8/8/8/8 b - - 0 1"), SearchLimits(depth=4))
    assert result.best_move == "0000" and result.score == ("cp", 0)
    # King and bishop cannot mate: the search knows it is a draw.
    result = searcher.search(Position("8/8/8/4k3/8/8/3B4/4K3 w - - 0 1"), SearchLimits(depth=8))
    assert result.score == ("cp", 0)
    # A knight against a rook is lost, but taking the rook leaves a lone knight: a draw.
    result = searcher.search(Position("4k3/8/8/8/8/8/1n6/3R2K1 b - - 0 1"), SearchLimits(depth=6))
    assert result.best_move == "b2d1" and result.score == ("cp", 0)


def test_quiescence_sees_through_exchanges() -> None:
    """At depth 1 only quiescence can tell that Rxd5 loses: the pawn on d5 is
    defended by the knight and the rook behind it, so after RxP NxR RxN RxR White
    has given two rooks for a pawn and a knight.  One capture deep, it looks like a
    free pawn."""
    fen = "3r2k1/5ppp/5n2/3p4/8/8/3R1PPP/3R2K1 w - - 0 1"
    result = AlphaBetaSearcher().search(Position(fen), SearchLimits(depth=1))
    assert result.best_move != "d2d5"
    # The same pawn undefended is simply taken.
    result = AlphaBetaSearcher().search(Position("6k1/5ppp/8/3p4/8/8/3R1PPP/3R2K1 w - - 0 1"), SearchLimits(depth=1))
    assert result.best_move == "d2d5"


def test_always_a_legal_move() -> None:
    searcher = AlphaBetaSearcher(hash_mb=4)
    for fen in random_positions(40, seed=11):
        legal = set(Position(fen).legal_moves())
        for limits in (SearchLimits(depth=1), SearchLimits(nodes=1), SearchLimits(movetime=1)):
            assert searcher.search(Position(fen), limits).best_move in legal
    # Only one legal move (the king must take the queen), at every limit.
    one = Position("7k/6Q1/8/8/8/8/8/K7 b - - 0 1")
    assert one.legal_moves() == ["h8g7"]
    for limits in (SearchLimits(depth=1), SearchLimits(nodes=1), SearchLimits(movetime=1), SearchLimits(depth=8)):
        assert searcher.search(one, limits).best_move == "h8g7"


def test_stopped_at_once_still_answers_legally() -> None:
    searcher = AlphaBetaSearcher()
    position = Position(REFERENCE_FENS[3])
    searcher.arm()       # the controller announces the search...
    searcher.stop()      # ...and a stop arrives before it starts
    result = searcher.search(position, SearchLimits(infinite=True))
    assert result.best_move in position.legal_moves()


def test_a_late_stop_does_not_cut_the_next_search_short() -> None:
    searcher = AlphaBetaSearcher()
    searcher.search(Position(), SearchLimits(depth=2))
    searcher.stop()      # arrives after that search returned: meant for no search
    result = searcher.search(Position(), SearchLimits(depth=7))
    assert result.depth == 7


def test_stop_ends_an_infinite_search() -> None:
    searcher = AlphaBetaSearcher()
    box = {}
    thread = threading.Thread(
        target=lambda: box.setdefault("r", searcher.search(Position(), SearchLimits(infinite=True))))
    thread.start()
    time.sleep(0.3)
    assert thread.is_alive()          # infinite: it waits for stop
    searcher.stop()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert box["r"].best_move in Position().legal_moves()


@pytest.mark.serial
def test_gil_is_released_while_searching() -> None:
    searcher = AlphaBetaSearcher()
    done = threading.Event()

    def think() -> None:
        searcher.search(Position(), SearchLimits(movetime=600))
        done.set()

    thread = threading.Thread(target=think)
    counter = 0
    thread.start()
    time.sleep(0.05)
    while not done.is_set():
        counter += 1
    thread.join()
    # A search holding the GIL would leave this loop a handful of turns per switch interval.
    assert counter > 100_000


def test_info_reports_each_iteration() -> None:
    infos: list[Info] = []
    result = AlphaBetaSearcher().search(Position(), SearchLimits(depth=6), infos.append)
    lines = [i for i in infos if isinstance(i, SearchInfo)]
    assert [i.depth for i in lines] == list(range(1, 7))
    last = lines[-1]
    assert last.pv[0] == result.best_move
    assert last.nodes == result.nodes and last.seldepth >= 6


def test_multipv_gives_distinct_lines_best_first() -> None:
    searcher = AlphaBetaSearcher()
    searcher.multipv = 3
    infos: list[Info] = []
    searcher.search(Position(), SearchLimits(depth=5), infos.append)
    final = [i for i in infos if isinstance(i, SearchInfo) and i.depth == 5]
    assert [i.multipv for i in final] == [1, 2, 3]
    assert len({i.pv[0] for i in final}) == 3
    scores = [i.score[1] for i in final]
    assert scores == sorted(scores, reverse=True)


def test_searchmoves_restricts_the_root() -> None:
    result = AlphaBetaSearcher().search(Position(), SearchLimits(depth=4, searchmoves=["a2a3", "h2h3"]))
    assert result.best_move in ("a2a3", "h2h3")


def test_time_budget_never_exceeds_the_clock() -> None:
    for remaining in (0, 5, 50, 300, 1000, 10_000, 600_000):
        for increment in (0, 10, 100, 5000):
            for moves_to_go in (None, 1, 2, 40):
                limits = SearchLimits(wtime=remaining, btime=remaining, winc=increment, binc=increment,
                                      movestogo=moves_to_go)
                soft, hard = time_budget(limits, True, 50)
                assert 1 <= soft <= hard
                if remaining > 100:
                    assert hard <= remaining - 50
    assert time_budget(SearchLimits(depth=5), True, 50) is None
    assert time_budget(SearchLimits(movetime=500), True, 50) == (450, 450)


@pytest.mark.serial(cores=1)
def test_movetime_is_respected() -> None:
    start = time.perf_counter()
    result = AlphaBetaSearcher().search(Position(), SearchLimits(movetime=300))
    elapsed = time.perf_counter() - start
    assert result.best_move in Position().legal_moves()
    assert elapsed < 2.0      # generous: this checks that the limit is applied, not speed
