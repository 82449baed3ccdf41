"""Lazy SMP: several threads search one root and share the transposition table.

The answers must stay right (the same forced mates, always a legal move), and the
threads must start and stop cleanly, many times in a row, with no hang.  The helper
threads live between searches (search/thread_pool.pxd): started when Threads is set,
parked, woken by each search, joined when the count changes or the searcher goes.
Timings are the business of `python -m tools.thread_bench`, not of these tests.
"""

from __future__ import annotations

import io
import threading
import time

import chess
import pytest
from conftest import BackgroundSearch, UciProcess, bestmoves
from test_search import MATES, random_positions

from search.alphabeta_searcher import AlphaBetaSearcher
from search.board import Position
from search.info import Info, SearchInfo, SearchResult
from search.limits import MAX_THREADS, SearchLimits
from search.mcts_searcher import MCTSSearcher
from search.searcher import Searcher


@pytest.mark.parametrize("threads", [2, 4])
@pytest.mark.parametrize("fen,moves", MATES[::2])
def test_threads_find_the_same_mates(fen: str, moves: int, threads: int) -> None:
    result = AlphaBetaSearcher(hash_mb=16, threads=threads).search(Position(fen), SearchLimits(depth=2 * moves + 6))
    assert result.score == ("mate", moves)
    board = chess.Board(fen)
    for uci in result.pv[: 2 * moves - 1]:
        board.push_uci(uci)
    assert board.is_checkmate(), result.pv


def test_threads_always_answer_a_legal_move() -> None:
    searcher = AlphaBetaSearcher(hash_mb=8, threads=3)
    for fen in random_positions(40, seed=11, min_plies=10, max_plies=90):
        position = Position(fen)
        result = searcher.search(position, SearchLimits(nodes=20_000))
        if position.legal_moves():
            assert result.best_move in position.legal_moves(), fen
            board = chess.Board(fen)
            for uci in result.pv:      # the whole PV, from whichever thread gave it, is playable
                move = chess.Move.from_uci(uci)
                assert move in board.legal_moves, (fen, result.pv)
                board.push(move)


def test_nodes_of_every_thread_are_counted_and_reported_once() -> None:
    infos: list[Info] = []
    one = AlphaBetaSearcher(hash_mb=16).search(Position(), SearchLimits(depth=9))
    result = AlphaBetaSearcher(hash_mb=16, threads=2).search(Position(), SearchLimits(depth=9), infos.append)
    lines = [i for i in infos if isinstance(i, SearchInfo)]
    # One line per iteration of the main thread (no helper reports), nodes summed over threads.
    assert [i.depth for i in lines] == list(range(1, 10))
    assert lines[-1].nodes <= result.nodes
    assert result.nodes > one.nodes // 2


@pytest.mark.serial
def test_start_and_stop_four_threads_many_times() -> None:
    searcher = AlphaBetaSearcher(hash_mb=16, threads=4)
    fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9"
    legal = Position(fen).legal_moves()
    for round_number in range(60):
        search = BackgroundSearch(searcher, fen)
        time.sleep(0.002 * (round_number % 7))
        assert search.stop().best_move in legal, round_number
    # The same parked threads served every round: three helpers and the clock's watch.
    assert searcher.helper_threads_started == searcher.helper_threads_alive == 4


def test_threads_range_and_changes_between_searches() -> None:
    searcher = AlphaBetaSearcher(hash_mb=4)
    assert searcher.threads == 1
    for bad in (0, -3, MAX_THREADS + 1):
        with pytest.raises(ValueError):
            searcher.threads = bad
    assert searcher.threads == 1
    for count in (3, 1, 8, 2):
        searcher.threads = count
        assert searcher.threads == count
        result = searcher.search(Position(), SearchLimits(depth=5))
        assert result.best_move in Position().legal_moves()


@pytest.mark.parametrize("searcher_class", [AlphaBetaSearcher, MCTSSearcher])
def test_a_helper_thread_that_cannot_start_leaves_the_previous_count(searcher_class: type[Searcher],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Both searchers' helpers are the Searcher's: when the third new thread cannot start, the
    two already started are joined, the setter raises, the searcher keeps the threads it had
    (started again), and it searches with them."""
    searcher = searcher_class(hash_mb=16, threads=2)
    start = threading.Thread.start
    started: list[threading.Thread] = []
    refused: list[threading.Thread] = []

    def third_fails_once(thread: threading.Thread) -> None:
        if len(started) == 2 and not refused:
            refused.append(thread)
            raise RuntimeError("can't start new thread")
        started.append(thread)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", third_fails_once)
    with pytest.raises(RuntimeError):
        searcher.threads = 8
    monkeypatch.undo()
    assert refused and not any(thread.is_alive() for thread in started[:2])
    # The previous count, with threads started again: the helper and the clock's watch.
    assert searcher.threads == 2 and searcher.helper_threads_alive == 2
    assert all(thread.is_alive() for thread in started[2:]) and len(started) == 4
    result = searcher.search(Position(), SearchLimits(nodes=2000))
    assert result.best_move in Position().legal_moves()

    # When even the previous count cannot be started again, one thread is left.
    def never(thread: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", never)
    with pytest.raises(RuntimeError):
        searcher.threads = 8
    monkeypatch.undo()
    assert searcher.threads == 1 and searcher.helper_threads_alive == 0
    assert searcher.search(Position(), SearchLimits(nodes=2000)).best_move in Position().legal_moves()


def kestrel_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith(("kestrel-helper", "kestrel-mcts"))}


@pytest.mark.parametrize("searcher_class", [AlphaBetaSearcher, MCTSSearcher])
def test_helper_threads_are_started_once_and_reused_by_every_search(searcher_class: type[Searcher]) -> None:
    before = kestrel_threads()
    searcher = searcher_class(hash_mb=16, threads=4)
    assert searcher.helper_threads_started == searcher.helper_threads_alive == 4   # 3 helpers, the watch
    mine = kestrel_threads() - before
    assert len(mine) == 4
    for limits in (SearchLimits(nodes=3000), SearchLimits(depth=4), SearchLimits(movetime=30),
                   SearchLimits(wtime=500, btime=500)):
        for _ in range(3):
            assert searcher.search(Position(), limits).best_move in Position().legal_moves()
    assert searcher.helper_threads_started == 4
    assert kestrel_threads() - before == mine and all(t.is_alive() for t in mine)


def test_changing_threads_joins_the_old_helpers_and_starts_new_ones() -> None:
    before = kestrel_threads()
    searcher = AlphaBetaSearcher(hash_mb=8, threads=3)
    first = kestrel_threads() - before
    searcher.threads = 6
    second = kestrel_threads() - before
    assert len(first) == 3 and len(second) == 6 and not first & second
    assert not any(t.is_alive() for t in first)
    assert searcher.helper_threads_started == 3 + 6
    assert searcher.search(Position(), SearchLimits(depth=6)).best_move in Position().legal_moves()
    searcher.threads = 1
    assert searcher.helper_threads_alive == 0 and not any(t.is_alive() for t in second)
    assert searcher.search(Position(), SearchLimits(depth=6)).best_move in Position().legal_moves()
    searcher.threads = 2
    assert searcher.helper_threads_alive == 2
    assert searcher.search(Position(), SearchLimits(depth=6)).best_move in Position().legal_moves()


@pytest.mark.serial
def test_timed_searches_after_each_change_of_threads() -> None:
    """Timed searches wake the clock's watch too (the pool's last thread): after the count
    grows or shrinks, every thread wakes only threads of its own pool."""
    searcher = AlphaBetaSearcher(hash_mb=8)
    for count in (64, 4, 2, 32, 3, 1, 16):
        searcher.threads = count
        for limits in (SearchLimits(movetime=20), SearchLimits(wtime=300, btime=300), SearchLimits(nodes=3000)):
            assert searcher.search(Position(), limits).best_move in Position().legal_moves()
        assert searcher.helper_threads_alive == (count if count > 1 else 0)


def test_a_searcher_that_goes_joins_its_threads() -> None:
    before = kestrel_threads()
    searcher = MCTSSearcher(hash_mb=8, threads=3)
    searcher.search(Position(), SearchLimits(nodes=2000))
    mine = kestrel_threads() - before
    assert len(mine) == 3
    del searcher            # nothing else holds it: the threads hold only the pool
    assert not any(t.is_alive() for t in mine)


@pytest.mark.serial
@pytest.mark.parametrize("searcher_class", [AlphaBetaSearcher, MCTSSearcher])
def test_sixty_four_threads_search_stop_and_search_again(searcher_class: type[Searcher]) -> None:
    """More threads than this machine has cores, many times over: timed, fixed and infinite
    searches each end (the infinite ones by stop) with a legal move, and no thread is added."""
    searcher = searcher_class(hash_mb=16, threads=64)
    fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9"
    legal = Position(fen).legal_moves()
    for round_number in range(4):
        assert searcher.search(Position(fen), SearchLimits(movetime=40)).best_move in legal
        assert searcher.search(Position(fen), SearchLimits(nodes=5000)).best_move in legal
        search = BackgroundSearch(searcher, fen)
        time.sleep(0.01 * round_number)
        assert search.stop().best_move in legal
    assert searcher.helper_threads_started == searcher.helper_threads_alive == 64


def test_threads_still_find_the_mates_with_many_threads() -> None:
    fen, moves = MATES[3]
    result = AlphaBetaSearcher(hash_mb=16, threads=32).search(Position(fen), SearchLimits(depth=2 * moves + 6))
    assert result.score == ("mate", moves)


@pytest.mark.serial
def test_a_ponder_search_with_helpers_waits_for_ponderhit() -> None:
    """With helpers and the clock's watch, a ponder search outlives its whole clock until the
    ponderhit; then it ends by the clock, and every thread (the watch too) is parked again."""
    searcher = AlphaBetaSearcher(hash_mb=16, threads=4)
    infos: list[Info] = []
    box: dict[str, SearchResult] = {}
    searcher.arm()
    thread = threading.Thread(target=lambda: box.update(result=searcher.search(
        Position(), SearchLimits(wtime=200, btime=200, ponder=True), infos.append)))
    thread.start()
    time.sleep(0.5)     # longer than the whole clock: only pondering keeps it going
    assert thread.is_alive()
    searcher.ponderhit()
    thread.join(10)
    assert not thread.is_alive() and box["result"].best_move in Position().legal_moves()
    assert searcher.search(Position(), SearchLimits(depth=5)).best_move in Position().legal_moves()


@pytest.mark.serial
def test_the_clock_runs_from_the_arrival_of_go() -> None:
    """arm(since_ms): the `go` arrived that long ago, and the search's clock counts from then
    (its reports' times say so, whatever the search did before it began)."""
    for threads in (1, 4):
        searcher = AlphaBetaSearcher(hash_mb=8, threads=threads)
        infos: list[Info] = []
        searcher.arm(since_ms=5000)
        result = searcher.search(Position(), SearchLimits(movetime=5_100), infos.append)
        times = [info.time for info in infos if isinstance(info, SearchInfo)]
        assert times and times[0] >= 5000, (threads, times)
        assert result.best_move in Position().legal_moves()
        # The next search, not armed with an arrival, counts from its own start.
        infos.clear()
        searcher.search(Position(), SearchLimits(depth=3), infos.append)
        assert all(info.time < 5000 for info in infos if isinstance(info, SearchInfo))


def test_thread_counts_are_checked_in_one_place() -> None:
    from search.limits import checked_thread_count
    assert checked_thread_count("4") == 4 and checked_thread_count(MAX_THREADS) == MAX_THREADS
    for bad in (0, MAX_THREADS + 1, "two", None, "1.5"):
        with pytest.raises(ValueError):
            checked_thread_count(bad)


def test_bench_refuses_a_bad_thread_count_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    from search.bench import main as bench_main
    for bad in ("0", str(MAX_THREADS + 1), "two"):
        assert bench_main(["1", bad]) == 2
        assert "bench: threads must be" in capsys.readouterr().err
    assert bench_main(["deep"]) == 2
    assert "depth must be a whole number" in capsys.readouterr().err



# ---------------------------------------------------------------- through the UCI process

@pytest.mark.serial
@pytest.mark.parametrize("mode", ["AlphaBeta", "MCTS"])
def test_uci_engine_with_many_threads_answers_every_go_and_stop(engine: UciProcess, mode: str) -> None:
    """Threads 64 and then 256 on this machine's few cores: each `go movetime` and each `stop`
    of `go infinite` gets its one bestmove, a legal one, and Threads can go back down."""
    engine.send(f"setoption name SearchMode value {mode}")
    for threads in (64, MAX_THREADS, 4):
        engine.send(f"setoption name Threads value {threads}", "isready")
        engine.read_until("readyok")
        for _ in range(2):
            engine.send("position startpos moves e2e4", "go movetime 50")
            lines = engine.read_until("bestmove")
            board = chess.Board()
            board.push_uci("e2e4")
            assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
            engine.send("position startpos", "go infinite")
            engine.read_until("info depth" if mode == "AlphaBeta" else "info")
            engine.send("stop")
            lines = engine.read_until("bestmove")
            assert len(bestmoves(lines)) == 1
            assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
    engine.send("isready")
    assert engine.read_until("readyok")[-1] == "readyok"


@pytest.mark.serial
def test_search_job_clock_runs_from_the_arrival_of_go() -> None:
    """uci_engine.jobs.SearchJob arms the searcher with the time since `go` arrived: the
    search's reports count from then."""
    from uci_engine.jobs import SearchJob
    from uci_engine.output import Output

    buffer = io.BytesIO()
    searcher = AlphaBetaSearcher(hash_mb=8, threads=4)
    infos: list[Info] = []
    position = Position()
    job = SearchJob(Output(buffer), position.copy(),
                    lambda: searcher.search(position, SearchLimits(movetime=3_100), infos.append),
                    searcher=searcher, arrived=time.monotonic() - 3.0)
    job.start()
    assert job.wait(30)
    times = [info.time for info in infos if isinstance(info, SearchInfo)]
    assert times and times[0] >= 3000, times
    assert buffer.getvalue().decode().startswith("bestmove ")


def test_a_searcher_in_a_reference_cycle_is_collected_without_a_crash() -> None:
    """The garbage collector frees a searcher whose callback reaches back to it; its helper threads
    must still be joined then (a cleared pool field crashed the process).  Run in a child process,
    so that a crash fails this test instead of ending the test run."""
    import subprocess
    import sys
    script = (
        "import gc\n"
        "from search.alphabeta_searcher import AlphaBetaSearcher\n"
        "from search.mcts_searcher import MCTSSearcher\n"
        "from search.board.position import Position\n"
        "from search.limits import SearchLimits\n"
        "for kind in (AlphaBetaSearcher, MCTSSearcher):\n"
        "    for _ in range(3):\n"
        "        class Held(kind):\n"
        "            pass\n"
        "        searcher = Held(hash_mb=1)\n"
        "        searcher.threads = 3\n"
        "        searcher.itself = searcher\n"
        "        searcher.search(Position(), SearchLimits(nodes=2000))\n"
        "        del searcher\n"
        "        gc.collect()\n"
        "print('collected')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0 and result.stdout.strip() == "collected", result.stderr
