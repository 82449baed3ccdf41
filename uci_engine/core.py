"""Lazy access to the Cython core.

Importing the board builds its attack tables (about 0.3 s), so the loop imports it on first
need, not at start-up: `uci` is answered at once, and the import overlaps the GUI's
`isready` round trip (see ``preload``).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import threading
from typing import Any, Dict, Tuple

_lock = threading.Lock()
_modules: Dict[str, Any] = {}

# SearchMode value -> (module, class) of its searcher.
SEARCHERS: Dict[str, Tuple[str, str]] = {
    "AlphaBeta": ("search.engine", "Searcher"),
    "MCTS": ("search.mcts_engine", "MCTSSearcher"),
}


def module(name: str) -> Any:
    """Import `name` once; ImportError (with the reason) if it is not built or not there."""
    with _lock:
        if name not in _modules:
            _modules[name] = importlib.import_module(name)
        return _modules[name]


def position_class() -> Any:
    return module("search").Position


def limits_class() -> Any:
    return module("search.limits").SearchLimits


def searcher_class(mode: str) -> Any:
    module_name, class_name = SEARCHERS[mode]
    return getattr(module(module_name), class_name)


def preload() -> None:
    """Import the board in a background thread (errors are reported when it is used)."""
    def run() -> None:
        try:
            module("search")
        except Exception:
            pass
    threading.Thread(target=run, name="kestrel-preload", daemon=True).start()


def search_modes() -> Tuple[str, ...]:
    """The SearchMode values whose searcher is installed.

    Looking for the module file, not importing it, keeps `uci` fast; a searcher that is
    there but fails to import is reported when SearchMode selects it.
    """
    modes = ["AlphaBeta"]
    spec = importlib.util.find_spec("search")
    folders = list(spec.submodule_search_locations or []) if spec else []
    stem = SEARCHERS["MCTS"][0].rsplit(".", 1)[1]
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        if any(n.startswith(stem + ".") and n.endswith(tuple(importlib.machinery.all_suffixes()))
               for n in names):
            modes.append("MCTS")
            break
    return tuple(modes)
