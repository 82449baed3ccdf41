"""The search's numbers in one table: every margin, depth limit and reduction constant.

This table is their one definition.  The C search reads the entries from
``SearchState.params``, a struct whose fields (search/params.pxd) are rendered from this
table by ``write_params_pxd`` (setup.py runs it before compiling) and filled from it by
name when a searcher is made or ``set_params`` is called; the ``tm_*`` time factors stay
out of the struct (search/timeman.pyx reads them from the dict).  A tuner (``python -m
tools.spsa``) moves them within their ranges; a tuned table is adopted only after an
SPRT against the old one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SearchParam:
    """One tunable number: its default, the range a tuner may explore, and what it does."""

    default: float
    low: float
    high: float
    doc: str
    integer: bool = True


SEARCH_PARAMS: dict[str, SearchParam] = {
    # Reverse futility: a node whose static eval is this far above beta fails high at once.
    "rfp_max_depth": SearchParam(6, 2, 10, "deepest node reverse futility applies to"),
    "rfp_margin": SearchParam(93, 30, 200, "margin per ply of depth (less one ply when improving)"),
    # Null move.
    "nmp_min_depth": SearchParam(3, 2, 6, "shallowest node that tries a null move"),
    "nmp_base_reduction": SearchParam(3, 2, 5, "the null move's reduction before its depth term"),
    "nmp_depth_divisor": SearchParam(4, 2, 8, "one more ply of reduction per this many plies of depth"),
    "nmp_eval_margin": SearchParam(58, 50, 500, "static eval this far above beta adds a ply of reduction"),
    "nmp_verify_depth": SearchParam(12, 6, 30, "from this depth a null-move cutoff is verified"),
    # Internal iterative reduction.
    "iir_min_depth": SearchParam(6, 3, 12, "PV and cut nodes without a hash move from this depth lose a ply"),
    # SEE pruning of captures.
    "see_max_depth": SearchParam(4, 1, 8, "deepest node that prunes losing captures"),
    "see_margin": SearchParam(56, 20, 200, "a capture losing more than this per ply of depth is pruned"),
    # Late-move pruning.
    "lmp_max_depth": SearchParam(4, 1, 8, "deepest node that prunes late quiet moves"),
    "lmp_base": SearchParam(3, 1, 8, "quiet moves always tried before depth^2 (x2 when improving) more"),
    # Futility pruning at the reduced depth.
    "futility_max_depth": SearchParam(6, 2, 10, "deepest reduced depth futility applies to"),
    "futility_base": SearchParam(136, 40, 300, "margin at reduced depth 0"),
    "futility_per_depth": SearchParam(54, 40, 250, "margin per ply of reduced depth"),
    "futility_history_divisor": SearchParam(128, 32, 1024, "history / this is added to the margin"),
    # Late-move reductions: base(d, n) = lmr_base + ln(d) ln(n) / lmr_divisor.
    "lmr_min_depth": SearchParam(3, 2, 6, "shallowest node that reduces late moves"),
    "lmr_base": SearchParam(0.75, 0.0, 2.0, "constant term of the reduction table", integer=False),
    "lmr_divisor": SearchParam(2.25, 1.0, 4.0, "divisor of ln(depth) ln(moves)", integer=False),
    "lmr_history_divisor": SearchParam(6000, 1000, 20000, "history / this is taken off the reduction"),
    # Singular extensions (switch `singular_extension`).
    "se_min_depth": SearchParam(7, 4, 14, "shallowest node that tests its hash move for singularity"),
    "se_tt_depth_margin": SearchParam(3, 1, 6, "the hash entry may be at most this much shallower"),
    "se_margin_per_depth": SearchParam(2, 1, 8, "singular beta = hash score - this * depth"),
    # ProbCut (switch `probcut`): a capture that beats beta by a margin in a shallow search cuts.
    "probcut_min_depth": SearchParam(5, 3, 10, "shallowest non-PV node that tries ProbCut"),
    "probcut_margin": SearchParam(200, 50, 400, "a capture must reach beta + this in the reduced search"),
    "probcut_reduction": SearchParam(4, 3, 6, "the reduced search is this many plies shallower"),
    # Aspiration windows.
    "aspiration_min_depth": SearchParam(5, 2, 10, "first iteration searched with a window"),
    "aspiration_delta": SearchParam(6, 5, 60, "half-width of the first window in centipawns"),
    # Quiescence.
    "delta_margin": SearchParam(463, 50, 500, "a capture that cannot lift the eval to alpha by this is skipped"),
    # Time management (search/timeman.pyx).  The plan: the clock is shared over the moves the game
    # likely still has, tm_horizon_start at move 0, tm_horizon_per_move fewer each move, at least
    # tm_horizon_min; the maximum caps the move.
    "tm_horizon_start": SearchParam(26, 12, 60, "moves a sudden-death plan spreads the clock over at move 0",
                                    integer=False),
    "tm_horizon_per_move": SearchParam(0.25, 0.0, 0.6, "moves fewer per move played", integer=False),
    "tm_horizon_min": SearchParam(10, 5, 30, "the fewest moves a sudden-death plan spreads the clock over",
                                  integer=False),
    "tm_horizon_min_no_increment": SearchParam(30, 10, 60, "the same when no increment pays the expected lag",
                                               integer=False),
    "tm_expected_lag_share": SearchParam(0.2, 0.0, 1.0, "the lag a move likely meets, in Move Overheads",
                                         integer=False),
    "tm_lag_reserve_moves": SearchParam(30, 0, 60, "moves of expected lag the plan keeps back", integer=False),
    "tm_increment_reserve": SearchParam(5, 0, 20, "increments the plan keeps back", integer=False),
    "tm_max_share": SearchParam(0.35, 0.1, 0.7, "largest share of the clock one move may take", integer=False),
    "tm_max_over_optimum": SearchParam(4.0, 1.5, 8.0, "the maximum in optima", integer=False),
    # The stop rule: after an iteration, no new one once the optimum times the search's signals
    # times tm_iteration_share is spent.
    "tm_iteration_share": SearchParam(0.7, 0.3, 1.5, "no new iteration after this share of the scaled optimum",
                                      integer=False),
    "tm_instability_per_change": SearchParam(0.4, 0.0, 1.0, "optimum stretch per best-move change",
                                             integer=False),
    "tm_max_instability": SearchParam(2.5, 1.0, 4.0, "largest stretch for best-move changes", integer=False),
    "tm_stable_iterations": SearchParam(6, 2, 12, "the same best move this often shrinks the optimum"),
    "tm_stable_factor": SearchParam(0.7, 0.3, 1.0, "the shrink factor", integer=False),
    # The best move's share of the root's nodes (switch `node_time_management`): the optimum is
    # scaled by tm_node_weight * (tm_node_center - share).
    "tm_node_center": SearchParam(1.5, 1.0, 2.5, "share at which the node factor would be 0", integer=False),
    "tm_node_weight": SearchParam(1.35, 0.5, 3.0, "slope of the node factor", integer=False),
    # A score that fell below its running average over the iterations stretches the optimum.
    "tm_score_drop_per_cp": SearchParam(0.01, 0.0, 0.03, "optimum stretch per centipawn of score drop",
                                        integer=False),
    "tm_min_score_factor": SearchParam(0.85, 0.5, 1.0, "the factor for a rising score at least", integer=False),
    "tm_max_score_factor": SearchParam(1.6, 1.0, 2.5, "the factor for a falling score at most", integer=False),
}


def default_params() -> dict[str, float]:
    """Every parameter at its default."""
    return {name: param.default for name, param in SEARCH_PARAMS.items()}


def checked_params(values: dict[str, float]) -> dict[str, float]:
    """The defaults overridden by `values`, each checked against its range (ValueError)."""
    params = default_params()
    for name, value in values.items():
        if name not in SEARCH_PARAMS:
            raise ValueError(f"no search parameter {name!r}")
        param = SEARCH_PARAMS[name]
        number = float(value)
        if not param.low <= number <= param.high:
            raise ValueError(f"search parameter {name} must be from {param.low} to {param.high}, not {value}")
        params[name] = int(round(number)) if param.integer else number
    return params


# ---------------------------------------------------------------- the C struct's fields

# search/params.pxd holds the struct SearchParams; its fields between these two lines are
# rendered from SEARCH_PARAMS (int or double, with the entry's doc), so they are never written by hand.
STRUCT_BEGIN = "    # Generated from search/param_table.py by write_params_pxd() (setup.py runs it): edit the table."
STRUCT_END = "    # End of the generated fields."


def struct_names() -> list[str]:
    """The entries the C search reads from its struct: all but the tm_* time factors."""
    return [name for name in SEARCH_PARAMS if not name.startswith("tm_")]


def render_struct_fields() -> list[str]:
    """The generated lines of SearchParams, markers included."""
    width = max(len(name) for name in struct_names()) + len("double ")
    fields = [f"{('int ' if SEARCH_PARAMS[name].integer else 'double ') + name:<{width}}  # {SEARCH_PARAMS[name].doc}"
              for name in struct_names()]
    return [STRUCT_BEGIN, *(f"    {field}" for field in fields), STRUCT_END]


def with_struct_fields(pxd_text: str) -> str:
    """`pxd_text` (search/params.pxd) with the lines between the markers rendered afresh."""
    lines = pxd_text.split("\n")
    try:
        begin, end = lines.index(STRUCT_BEGIN), lines.index(STRUCT_END)
    except ValueError:
        raise ValueError("search/params.pxd lacks the markers of its generated fields") from None
    return "\n".join(lines[:begin] + render_struct_fields() + lines[end + 1:])


def write_params_pxd(path: str) -> bool:
    """Bring the params.pxd at `path` up to date with the table; True if it changed.  An
    unchanged file is not rewritten, so cythonize does not recompile the modules that cimport it."""
    with open(path, encoding="utf-8") as file:
        text = file.read()
    updated = with_struct_fields(text)
    if updated == text:
        return False
    with open(path, "w", encoding="utf-8") as file:
        file.write(updated)
    return True
