"""Time management: every clock a GUI or a bridge sends, judged by the plans the search makes.

No test here times a search.  Each plays whole games on paper: the clock the GUI would send,
the plan `time_budget` makes for it, a move that spends what the plan allows (the optimum, or
the maximum where the test says so) plus the lag a GUI or network adds, and the clock the GUI
sends next.  A plan that would flag shows up as a clock below zero.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from search.alphabeta_searcher import AlphaBetaSearcher
from search.board import Position
from search.limits import SearchLimits
from search.param_table import default_params
from search.timeman import game_ply, moves_left_horizon, search_signals_factor, time_budget

Spend = Callable[[int, int, int], float]    # (move number, optimum, maximum) -> milliseconds thought


def plans_optimum(move: int, optimum: int, maximum: int) -> float:
    return float(optimum)


def plans_maximum_every_fifth(move: int, optimum: int, maximum: int) -> float:
    """The search's signals stretch some moves to their maximum."""
    return float(maximum if move % 5 == 0 else optimum)


def play_on_paper(base_ms: int, increment_ms: int, moves: int, spend: Spend, *, overhead: int = 50,
                  lag: int = 10, moves_per_control: int | None = None, book_moves: int = 2) -> list[int]:
    """White's clock after each move of a game of `moves` moves; the GUI adds the increment
    after each move and, with `moves_per_control`, the base again after every that many moves."""
    clock = base_ms
    history = []
    for move in range(book_moves, moves):
        to_go = None if moves_per_control is None else moves_per_control - move % moves_per_control
        limits = SearchLimits(wtime=clock, btime=clock, winc=increment_ms, binc=increment_ms, movestogo=to_go)
        plan = time_budget(limits, True, overhead, None, 2 * move)
        assert plan is not None
        optimum, maximum = plan
        assert 1 <= optimum <= maximum
        clock -= int(spend(move, optimum, maximum)) + lag
        assert clock > 0, f"flagged on move {move}: plan {plan}"
        clock += increment_ms
        if moves_per_control is not None and (move + 1) % moves_per_control == 0:
            clock += base_ms
        history.append(clock)
    return history


@pytest.mark.parametrize("base_ms, increment_ms", [(1_000, 60), (10_000, 100), (60_000, 600), (180_000, 2_000)])
@pytest.mark.parametrize("spend", [plans_optimum, plans_maximum_every_fifth])
def test_sudden_death_with_increment_never_flags_in_a_long_game(base_ms: int, increment_ms: int,
                                                                spend: Spend) -> None:
    """200 moves, each paying 10 ms of lag (less than the 50 ms Move Overhead): the clock never runs out."""
    play_on_paper(base_ms, increment_ms, 200, spend)


@pytest.mark.parametrize("base_ms", [10_000, 60_000, 300_000])
@pytest.mark.parametrize("spend, moves", [(plans_optimum, 150), (plans_maximum_every_fifth, 100)])
def test_sudden_death_without_increment_lasts_a_long_game(base_ms: int, spend: Spend, moves: int) -> None:
    """No plan survives a game of any length without increment (every move's lag comes off the
    clock), but a long one does: 150 moves at 10 ms of lag each (125 in a 10 s game, where the lag
    alone takes 1.25 s), or 100 with every fifth move at its maximum; so does a game whose small
    increment pays the lag (a tenth of the base time + 0.02 s)."""
    play_on_paper(base_ms, 0, min(moves, base_ms // 80), spend)
    play_on_paper(base_ms // 10, 20, moves, spend)


def test_sudden_death_spends_the_clock_by_the_late_middlegame() -> None:
    """10 s + 0.1 s: by move 60 the plan has used most of the base time (Kestrel kept a third of
    it to the end before), yet keeps a reserve for a long endgame."""
    history = play_on_paper(10_000, 100, 200, plans_optimum)
    left_at_move_60 = history[60 - 2]
    assert left_at_move_60 < 2_000
    assert min(history) > 250


def test_the_first_twenty_moves_out_of_book_get_more_than_a_fixed_thirty_move_plan() -> None:
    """The horizon shrinks with the moves played, so the middlegame gets more than 1/30 of the clock."""
    history = play_on_paper(10_000, 100, 22, plans_optimum)
    spent = 10_000 + 100 * 20 - history[-1]
    assert spent > 20 * (10_000 / 30)


def test_increment_only_clock_never_flags() -> None:
    """A clock of a few milliseconds with a large increment (wtime 50, winc 2000): the first move
    fits the few milliseconds, then the plan lives on the increments."""
    optimum, maximum = time_budget(SearchLimits(wtime=50, btime=50, winc=2_000, binc=2_000), True, 50) or (0, 0)
    assert maximum <= 50
    history = play_on_paper(50, 2_000, 120, plans_maximum_every_fifth)
    late = history[60:]
    assert min(late) > 2_000          # a reserve builds up...
    assert max(late) < 20_000         # ...but the increments are spent, not hoarded


@pytest.mark.parametrize("moves_per_control, base_ms", [(40, 60_000), (40, 300_000), (20, 10_000), (1, 5_000)])
def test_repeating_controls_with_movestogo_never_flag_and_use_each_period(moves_per_control: int,
                                                                         base_ms: int) -> None:
    """Arena's "40 moves in N minutes", repeating: the plan spreads each period over the moves
    left in it and arrives at the control with a small rest."""
    history = play_on_paper(base_ms, 0, 130, plans_maximum_every_fifth, moves_per_control=moves_per_control,
                            book_moves=0)
    if moves_per_control > 1:
        before_refill = [history[move] - base_ms for move in range(moves_per_control - 1, 120, moves_per_control)]
        assert all(0 < rest < 0.5 * base_ms for rest in before_refill), before_refill


def test_movestogo_one_uses_most_of_the_clock_but_not_all() -> None:
    optimum, maximum = time_budget(SearchLimits(wtime=1_000, btime=1_000, movestogo=1), True, 50) or (0, 0)
    assert 400 <= optimum < maximum <= 950


def test_movetime_is_planned_exactly_less_the_overhead() -> None:
    assert time_budget(SearchLimits(movetime=1_000), True, 50) == (950, 950)
    assert time_budget(SearchLimits(movetime=10), True, 50) == (1, 1)


@pytest.mark.parametrize("overhead", [0, 50, 300, 1_000, 2_000])
def test_move_overhead_is_kept_on_every_clock(overhead: int) -> None:
    """lichess-bot's network needs hundreds of milliseconds: the maximum plus the overhead never
    reaches what is on the clock, and a game with lag just under the overhead never flags."""
    for remaining in (3_000, 10_000, 60_000, 600_000):
        for increment in (0, 100, 2_000):
            for to_go in (None, 1, 2, 30):
                limits = SearchLimits(wtime=remaining, btime=remaining, winc=increment, binc=increment,
                                      movestogo=to_go)
                optimum, maximum = time_budget(limits, True, overhead) or (0, 0)
                assert 1 <= optimum <= maximum
                assert maximum + overhead < remaining
    if overhead:
        # An increment that pays the lag (else no plan survives a long game: the lag alone empties the clock).
        play_on_paper(60_000, max(1_000, 2 * overhead), 150, plans_optimum, overhead=overhead, lag=overhead * 4 // 5)


def test_the_plan_depends_on_the_ply_not_a_fixed_moves_to_go() -> None:
    params = default_params()
    assert moves_left_horizon(0) == params["tm_horizon_start"]
    assert moves_left_horizon(400) == params["tm_horizon_min"]
    clock = SearchLimits(wtime=5_000, btime=5_000, winc=200, binc=200)
    early, late = time_budget(clock, True, 50, None, 10), time_budget(clock, True, 50, None, 100)
    assert early is not None and late is not None
    assert late[0] > early[0]      # the same clock later in the game: fewer moves to share it with
    assert game_ply(1, True) == 0 and game_ply(1, False) == 1 and game_ply(30, False) == 59


def test_the_increment_counts_for_the_moves_it_arrives_for() -> None:
    without = time_budget(SearchLimits(wtime=10_000, btime=10_000), True, 0) or (0, 0)
    with_increment = time_budget(SearchLimits(wtime=10_000, btime=10_000, winc=1_000, binc=1_000), True, 0) or (0, 0)
    assert with_increment[0] > without[0] + 800


def test_each_colour_reads_its_own_clock() -> None:
    limits = SearchLimits(wtime=60_000, btime=1_000, winc=0, binc=0)
    white, black = time_budget(limits, True, 50), time_budget(limits, False, 50)
    assert white is not None and black is not None and white[0] > 20 * black[0]


def test_search_signals_stretch_and_shrink_the_optimum() -> None:
    neutral = search_signals_factor()
    assert neutral == pytest.approx(1.0)
    assert search_signals_factor(best_move_changes=2) > neutral            # the best move keeps changing
    assert search_signals_factor(stable_iterations=8) < neutral            # settled
    assert search_signals_factor(score_drop=40) > neutral                  # the score falls
    assert search_signals_factor(score_drop=-40) < neutral                 # ...or rises
    assert search_signals_factor(best_move_share=0.3) > search_signals_factor(best_move_share=0.95)
    params = default_params()
    assert search_signals_factor(score_drop=1_000) == pytest.approx(params["tm_max_score_factor"])
    assert search_signals_factor(score_drop=-1_000) == pytest.approx(params["tm_min_score_factor"])
    assert search_signals_factor(score_drop=40, params=params | {"tm_score_drop_per_cp": 0.0}) == 1.0


def test_the_searcher_plays_the_plan_time_budget_makes() -> None:
    """A real `go` with a clock: the searcher keeps the plan made from this position's ply, and
    `go depth` makes none."""
    searcher = AlphaBetaSearcher(hash_mb=2)
    position = Position("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP3PPP/R2QKB1R b KQ - 3 23")
    limits = SearchLimits(wtime=400, btime=300, winc=20, binc=20)
    result = searcher.search(position, limits)
    assert result.best_move in position.legal_moves()
    assert searcher.time_plan == time_budget(limits, False, searcher.move_overhead, None, game_ply(23, False))
    searcher.search(position, SearchLimits(depth=2))
    assert searcher.time_plan is None
