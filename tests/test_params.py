"""The search parameter table: checked ranges, and every entry really reaches the search."""

from __future__ import annotations

import pytest
from conftest import REPO_ROOT

from search.alphabeta_searcher import AlphaBetaSearcher
from search.board import Position
from search.limits import SearchLimits
from search.param_table import (
    SEARCH_PARAMS,
    STRUCT_BEGIN,
    STRUCT_END,
    checked_params,
    default_params,
    struct_names,
    with_struct_fields,
)
from search.timeman import best_move_share_factor, time_budget
from tests.test_search import CANDIDATES

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP3PPP/R2QKB1R w KQ - 0 9"
TACTICAL = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10"


PARAMS_PXD = REPO_ROOT / "search" / "params.pxd"


def nodes_with(values: dict[str, float], depth: int = 9, **switches: bool) -> int:
    searcher = AlphaBetaSearcher(hash_mb=8)
    searcher.configure(**switches)
    searcher.set_params(values)
    return sum(searcher.search(Position(fen), SearchLimits(depth=depth)).nodes for fen in (MIDDLEGAME, TACTICAL))


def test_every_default_lies_in_its_range() -> None:
    for name, param in SEARCH_PARAMS.items():
        assert param.low <= param.default <= param.high, name
        assert param.doc, name


def test_values_are_checked() -> None:
    with pytest.raises(ValueError, match="no search parameter"):
        checked_params({"no_such_margin": 1})
    with pytest.raises(ValueError, match="must be from"):
        checked_params({"rfp_margin": SEARCH_PARAMS["rfp_margin"].high + 1})
    assert checked_params({"rfp_margin": 99.6})["rfp_margin"] == 100      # integers are rounded
    searcher = AlphaBetaSearcher(hash_mb=1)
    with pytest.raises(ValueError):
        searcher.set_params({"lmr_divisor": 0.0})
    assert searcher.params == default_params()


def test_params_pxd_is_generated_from_the_table() -> None:
    """search/params.pxd lists the struct's fields as search/param_table.py renders them (setup.py
    rewrites them before compiling; after a change to the table, build, then commit both)."""
    text = PARAMS_PXD.read_text(encoding="utf-8")
    assert text == with_struct_fields(text), "search/params.pxd is out of date with search/param_table.py"
    fields = text.split(STRUCT_BEGIN)[1].split(STRUCT_END)[0]
    assert [line.split()[1] for line in fields.strip().splitlines()] == struct_names()
    assert not any(name.startswith("tm_") for name in struct_names())    # timeman reads them from the dict


SEARCH_ENTRIES = struct_names()


@pytest.mark.slow
@pytest.mark.parametrize("name", SEARCH_ENTRIES)
def test_each_search_parameter_changes_the_tree(name: str) -> None:
    """Moving one entry to an end of its range changes the nodes of fixed-depth searches:
    the C search reads the table, not a literal of its own."""
    param = SEARCH_PARAMS[name]
    # A candidate's entries (named after its switch) act only with the candidate on.
    switches = {candidate: True for candidate in CANDIDATES if name.startswith(candidate + "_")}
    baseline = nodes_with({}, **switches)
    changed = {nodes_with({name: end}, **switches) for end in (param.low, param.high)}
    assert changed != {baseline}, name


def test_time_factors_come_from_the_table() -> None:
    limits = SearchLimits(wtime=60_000, winc=1_000)
    soft, hard = time_budget(limits, True, 0) or (0, 0)
    params = default_params() | {"tm_horizon_start": 12.0, "tm_max_share": 0.1}
    soft_short, hard_short = time_budget(limits, True, 0, params) or (0, 0)
    assert soft_short > soft                   # fewer moves planned: more time each
    assert hard_short <= 60_000 * 0.1 < hard   # a smaller share of the clock at most


def test_node_share_factor_comes_from_the_table() -> None:
    """Node-based time management: a best move that took most of the root's nodes
    shortens the soft budget, one that took few lengthens it; without a share, no change."""
    assert best_move_share_factor(-1.0) == 1.0
    settled, contested = best_move_share_factor(0.95), best_move_share_factor(0.2)
    assert settled < 1.0 < contested
    assert best_move_share_factor(0.2, default_params() | {"tm_node_weight": 2.0}) > contested
    assert best_move_share_factor(0.95, default_params() | {"tm_node_center": 2.0}) > settled
