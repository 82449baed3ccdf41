"""Draw scaling (eval/draw_scale.pxd): the factor for each ending it names, the side it scales,
and the search switch `draw_scaling` that puts it between the evaluation and the search."""

from __future__ import annotations

import pytest

from eval.draw_scale import drawish_scale, scaled_for_draws
from search.alphabeta_searcher import AlphaBetaSearcher
from search.board import Position
from search.limits import SearchLimits

WHITE, BLACK = 0, 1

# (FEN, the side whose advantage is scaled, the factor out of 64)
ENDINGS = {
    "lone bishop against a pawn": ("8/4p3/4k3/8/8/3B4/4K3/8 w - - 0 1", WHITE, 0),
    "two knights against a lone king": ("8/8/4k3/8/8/3NN3/4K3/8 w - - 0 1", WHITE, 0),
    "two knights against a pawn (may win)": ("8/4p3/4k3/8/8/3NN3/4K3/8 w - - 0 1", WHITE, 64),
    "rook against bishop": ("8/8/4k3/5b2/8/8/3RK3/8 w - - 0 1", WHITE, 8),
    "rook and bishop against rook": ("8/8/4k3/5r2/8/3B4/3RK3/8 w - - 0 1", WHITE, 16),
    "queen against rook (a win)": ("8/8/4k3/5r2/8/8/3QK3/8 w - - 0 1", WHITE, 64),
    "bishop and knight (a win)": ("8/8/4k3/8/8/3BN3/4K3/8 w - - 0 1", WHITE, 64),
    "a-pawn, dark bishop, king on a8": ("k7/8/8/P7/8/8/1B6/4K3 w - - 0 1", WHITE, 0),
    "a-pawn, light bishop (covers a8)": ("k7/8/8/P7/8/8/8/4KB2 w - - 0 1", WHITE, 64),
    "a-pawn, dark bishop, king far from a8": ("8/8/4k3/P7/8/8/1B6/4K3 w - - 0 1", WHITE, 64),
    "a-pawn, dark bishop, defender has a pawn": ("k7/7p/8/P7/8/8/1B6/4K3 w - - 0 1", WHITE, 16),
    "Black's h-pawn, dark bishop, king on h1": ("4k3/8/8/8/7p/8/5b2/7K b - - 0 1", BLACK, 0),
    "Black's h-pawn, light bishop (covers h1)": ("4k3/8/8/8/7p/8/4b3/7K b - - 0 1", BLACK, 64),
    "two a-pawns, king next to a8": ("1k6/8/8/P7/P7/8/8/4K3 w - - 0 1", WHITE, 0),
    "a b-pawn is no rook pawn": ("1k6/8/8/1P6/8/8/8/4K3 w - - 0 1", WHITE, 64),
    "pawns on both rook files": ("1k6/8/8/P6P/8/8/8/4K3 w - - 0 1", WHITE, 64),
    "a-pawn and a knight": ("k7/8/8/P7/8/8/8/4KN2 w - - 0 1", WHITE, 64),
}


@pytest.mark.parametrize("name", sorted(ENDINGS))
def test_factor_of_each_ending(name: str) -> None:
    fen, side, factor = ENDINGS[name]
    assert drawish_scale(Position(fen), side) == factor


def test_the_side_the_value_favours_is_scaled() -> None:
    rook_v_bishop_white_to_move = Position("8/8/4k3/5b2/8/8/3RK3/8 w - - 0 1")
    rook_v_bishop_black_to_move = Position("8/8/4k3/5b2/8/8/3RK3/8 b - - 0 1")
    assert scaled_for_draws(rook_v_bishop_white_to_move, 320) == 40       # White's rook: 8/64
    assert scaled_for_draws(rook_v_bishop_white_to_move, -320) == 0       # Black's lone bishop cannot win
    assert scaled_for_draws(rook_v_bishop_black_to_move, 320) == 0
    assert scaled_for_draws(rook_v_bishop_black_to_move, -320) == -40
    assert scaled_for_draws(rook_v_bishop_white_to_move, 0) == 0


def test_ordinary_positions_are_left_alone() -> None:
    for fen in (None, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                "8/5k2/6p1/8/8/8/1P3K2/8 w - - 0 1"):
        position = Position(fen) if fen else Position()
        assert scaled_for_draws(position, 137) == 137
        assert scaled_for_draws(position, -137) == -137


def test_strong_side_is_checked() -> None:
    with pytest.raises(ValueError):
        drawish_scale(Position(), 2)


def test_the_switch_is_adopted_on_by_default() -> None:
    assert AlphaBetaSearcher(hash_mb=1).switches["draw_scaling"] is True


def test_search_sees_two_knights_as_a_draw_unless_switched_off() -> None:
    position = Position("8/8/4k3/8/8/3NN3/4K3/8 w - - 0 1")
    searcher = AlphaBetaSearcher(hash_mb=8)
    with_scaling = searcher.search(position, SearchLimits(depth=6)).value
    searcher.configure(draw_scaling=False)
    searcher.clear()
    without = searcher.search(position, SearchLimits(depth=6)).value
    assert with_scaling == 0
    assert without > 200
