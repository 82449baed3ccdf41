"""Progressive widening in PUCT (the `progressive_widening` switch): a node tries its moves
one by one as its visits grow, and never locks out the move a refresh raised to the top."""

from __future__ import annotations

import math

import pytest

from search.board import Position
from search.limits import SearchLimits
from search.mcts_searcher import DEFAULT_PROGRESSIVE_WIDENING, HandTree, MCTSSearcher, tried_moves_limit

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9"
OPEN_GAME = "r2qkb1r/ppp2ppp/2n1bn2/3pp3/4P3/2NP1N2/PPP1BPPP/R1BQK2R w KQkq - 0 6"


def test_the_limit_starts_at_two_and_grows_as_the_square_root() -> None:
    assert tried_moves_limit(0) == tried_moves_limit(1) == 2
    limits = [tried_moves_limit(v) for v in range(0, 5000)]
    assert limits == sorted(limits)
    for visits in (16, 100, 1024, 4096):
        assert tried_moves_limit(visits) == 2 + math.isqrt(visits // 4)
    with pytest.raises(ValueError):
        tried_moves_limit(-1)


def widening_tree() -> tuple[HandTree, list[int]]:
    """A node with 3 visits (room for 2 tried moves): two tried moves doing badly, and two untried
    ones whose first-play value beats them, the better prior first."""
    tree = HandTree()
    children = tree.add_children(0, 4)
    for child, prior in zip(children, (0.4, 0.3, 0.2, 0.1), strict=True):
        tree.set_prior(child, prior)
    tree.set_stats(0, 3, 3 * 0.5)
    tree.set_stats(children[0], 2, 2 * 0.1)
    tree.set_stats(children[1], 1, 0.1)
    return tree, children


def test_widening_holds_back_untried_moves_once_enough_were_tried() -> None:
    tree, (first, second, third, _) = widening_tree()
    assert tried_moves_limit(3) == 2
    assert tree.select_puct(0, 1.0, 0.0) == third            # plain PUCT opens a third move
    assert tree.select_puct(0, 1.0, 0.0, widen=True) in (first, second)
    # More visits make room: the limit is 3 at 4 visits.
    tree.set_stats(0, 4, 4 * 0.5)
    assert tree.select_puct(0, 1.0, 0.0, widen=True) == third


def test_widening_never_locks_out_the_move_with_the_highest_prior() -> None:
    tree, (first, second, _, fourth) = widening_tree()
    # A refresh found the last move best: its prior is now the node's highest.
    tree.set_prior(fourth, 0.6)
    tree.set_prior(first, 0.2)
    assert tree.select_puct(0, 1.0, 0.0, widen=True) == fourth


def test_widening_opens_a_move_when_every_tried_one_is_lost() -> None:
    tree, (first, second, third, _) = widening_tree()
    tree.prove(first, "loss", 1)
    tree.prove(second, "loss", 1)
    assert tree.select_puct(0, 1.0, 0.0, widen=True) == third


def widths(fen: str, widen: bool) -> list[tuple[int, int, int]]:
    """(visits, legal moves, moves tried) of every expanded node after a 4000-playout search
    without refreshed priors (so the first prior stays each node's highest)."""
    searcher = MCTSSearcher(hash_mb=16)
    searcher.configure(progressive_widening=widen, refresh_priors=False)
    searcher.search(Position(fen), SearchLimits(nodes=4000))
    return searcher.tree_widths()


@pytest.mark.parametrize("fen", [MIDDLEGAME, OPEN_GAME])
def test_a_widening_search_tries_no_more_moves_than_its_visits_allow(fen: str) -> None:
    nodes = widths(fen, widen=True)
    assert len(nodes) > 50
    assert all(tried <= tried_moves_limit(visits) for visits, _, tried in nodes)
    # Without the switch, PUCT opens some node wider than that.
    assert any(tried > tried_moves_limit(visits) for visits, _, tried in widths(fen, widen=False))


def test_widening_is_off_by_default() -> None:
    assert DEFAULT_PROGRESSIVE_WIDENING is False
    assert MCTSSearcher().progressive_widening is False
