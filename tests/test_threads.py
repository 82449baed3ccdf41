"""Lazy SMP: several threads search one root and share the transposition table.

The answers must stay right (the same forced mates, always a legal move), and the
threads must start and stop cleanly, many times in a row, with no hang.
"""

from __future__ import annotations

import threading
import time

import chess
import pytest
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


def test_start_and_stop_four_threads_many_times() -> None:
    searcher = AlphaBetaSearcher(hash_mb=16, threads=4)
    fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9"
    legal = Position(fen).legal_moves()
    for round_number in range(60):
        searcher.arm()
        box: dict[str, SearchResult] = {}

        def run(box: dict[str, SearchResult] = box) -> None:
            box["result"] = searcher.search(Position(fen), SearchLimits(infinite=True))

        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(0.002 * (round_number % 7))
        searcher.stop()
        thread.join(10)
        assert not thread.is_alive(), f"round {round_number}: the search did not stop"
        assert box["result"].best_move in legal
    # Only the searcher's own threads were ever running: none is left behind.
    assert not [t for t in threading.enumerate() if t.name.startswith("kestrel-helper")]


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
def test_a_helper_thread_that_cannot_start_stops_the_others(searcher_class: type[Searcher],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Both searchers' helpers are the Searcher's: when the third helper's thread cannot start,
    the two already running are stopped and joined, the search raises, and the next one runs."""
    searcher = searcher_class(hash_mb=16, threads=4)
    start = threading.Thread.start
    started: list[threading.Thread] = []

    def start_two(thread: threading.Thread) -> None:
        if len(started) == 2:
            raise RuntimeError("can't start new thread")
        started.append(thread)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", start_two)
    with pytest.raises(RuntimeError):
        searcher.search(Position(), SearchLimits(infinite=True))
    assert len(started) == 2 and not any(thread.is_alive() for thread in started)
    monkeypatch.undo()
    result = searcher.search(Position(), SearchLimits(nodes=2000))
    assert result.best_move in Position().legal_moves()


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

