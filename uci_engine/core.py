"""Access to the Cython core, imported on first need.

The loop itself starts without the core, so `uci` is answered even when a part of the
core is not built; what is missing is reported by the command that needs it.  The
functions are typed with the core's stubs (search/*.pyi), so a type checker follows a
`go` from the UCI loop into the searchers.
"""

from __future__ import annotations

import importlib
import os
import threading
from types import ModuleType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from search.board.position import Position
    from search.limits import SearchLimits
    from search.searcher import Searcher

_lock = threading.Lock()
_modules: dict[str, ModuleType] = {}

# SearchMode value -> (module, class) of its searcher.
SEARCHERS: dict[str, tuple[str, str]] = {
    "AlphaBeta": ("search.alphabeta_searcher", "AlphaBetaSearcher"),
    "MCTS": ("search.mcts_searcher", "MCTSSearcher"),
}


def module(name: str) -> ModuleType:
    """Import `name` once; ImportError (with the reason) if it is not built or not there."""
    with _lock:
        if name not in _modules:
            _modules[name] = importlib.import_module(name)
        return _modules[name]


def position_class() -> type[Position]:
    return cast("type[Position]", module("search.board").Position)


def limits_class() -> type[SearchLimits]:
    return cast("type[SearchLimits]", module("search.limits").SearchLimits)


def searcher_class(mode: str) -> type[Searcher]:
    module_name, class_name = SEARCHERS[mode]
    return cast("type[Searcher]", getattr(module(module_name), class_name))


# For measuring what each search technique is worth in games (an ablation match):
# KESTREL_SEARCH_OFF=null_move,late_move_reductions starts the alpha-beta searcher with
# those switched off, and KESTREL_SEARCH_ON switches on a candidate that is off by default
# only while its test runs (a candidate that loses is deleted).  The names are the searchers' configure() keywords.
SEARCH_OFF_VARIABLE = "KESTREL_SEARCH_OFF"
SEARCH_ON_VARIABLE = "KESTREL_SEARCH_ON"


def _names(variable: str) -> list[str]:
    return [name.strip() for name in os.environ.get(variable, "").split(",") if name.strip()]


def _own_switches_of_other_modes(mode: str) -> set[str]:
    """The configure() names of the other modes' searchers that `mode`'s does not have (their
    modules' OWN_SWITCHES; a module that is not built has none)."""
    names: set[str] = set()
    for other, (module_name, _) in SEARCHERS.items():
        if other != mode:
            try:
                names.update(getattr(module(module_name), "OWN_SWITCHES", ()))
            except ImportError:
                continue
    return names


def new_searcher(mode: str, hash_mb: int) -> Searcher:
    """A searcher for `mode`, with the techniques named in KESTREL_SEARCH_OFF switched off and
    those in KESTREL_SEARCH_ON switched on."""
    searcher = searcher_class(mode)(hash_mb=hash_mb)
    switches = {name: False for name in _names(SEARCH_OFF_VARIABLE)}
    switches |= {name: True for name in _names(SEARCH_ON_VARIABLE)}
    # A switch that only another mode's searcher has (MCTS's stop rule, say) is left to that
    # one, so that one variable sets up both modes of an engine; a name no searcher has is an error.
    foreign = _own_switches_of_other_modes(mode)
    switches = {name: on for name, on in switches.items() if name not in foreign}
    configure = getattr(searcher, "configure", None)
    if switches and configure is not None:
        try:
            configure(**switches)
        except TypeError as exc:
            raise ValueError(f"{SEARCH_OFF_VARIABLE}/{SEARCH_ON_VARIABLE}: {exc}") from exc
    return searcher


def search_modes() -> tuple[str, ...]:
    """The SearchMode values to declare: AlphaBeta always (a `go` reports it if it is not
    built), the others only when their searcher imports (a few ms)."""
    modes = ["AlphaBeta"]
    for mode in SEARCHERS:
        if mode != "AlphaBeta":
            try:
                searcher_class(mode)
            except Exception:
                continue
            modes.append(mode)
    return tuple(modes)
