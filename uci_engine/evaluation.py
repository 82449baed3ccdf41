"""Which evaluation the searchers play with: the built-in net, an `EvalFile` net, or the weighted one.

`Use NNUE` picks the learned evaluation (on by default: the built-in net beats the weighted one in
games, docs/nnue.md); `EvalFile` names its net, the built-in one (shipped in the package) by default.
The human levels (`UCI_LimitStrength`, `Skill Level` below 20) play with the weighted evaluation,
with which their calibration against Stockfish's `UCI_Elo` scale was measured (docs/play.md).  A net file
that is missing, truncated or corrupt is reported with an `info string` naming the problem, and the
built-in net takes its place.  The nets are read through ``eval.networks`` (the compiled core,
imported on first need).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from uci_engine import core
from uci_engine.options import shown

if TYPE_CHECKING:
    from eval.nnue import Network


class EvaluationChoice:
    """The loaded `EvalFile` net (None: the built-in one) and the messages its loading gave."""

    def __init__(self) -> None:
        self.custom: Network | None = None
        self.custom_path = ""
        self._builtin_problem_reported = False

    def _networks(self) -> Any:
        return core.module("eval.networks")

    def builtin_name(self) -> str:
        """The built-in net's file name, the `EvalFile` default (a fallback if the core is not built)."""
        try:
            return str(self._networks().BUILTIN_NET)
        except ImportError:
            return "<built-in>"

    def open(self, value: str) -> list[str]:
        """Load the net `EvalFile` names; the `info string` lines to print."""
        networks = self._networks()
        if networks.is_builtin_name(value):
            self.custom, self.custom_path = None, ""
            return []
        try:
            network, params = networks.load_network(value)
        except (OSError, ValueError) as exc:
            self.custom, self.custom_path = None, ""
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return [f"EvalFile {shown(value, 200)} cannot be used ({reason}); the built-in net takes its place"]
        self.custom, self.custom_path = network, value
        return [f"EvalFile {shown(value, 200)} loaded: {params.hidden} hidden units"]

    def network(self, use_nnue: bool) -> tuple[Network | None, list[str]]:
        """The net to search with (None: the weighted evaluation) and any lines to print."""
        if not use_nnue:
            return None, []
        if self.custom is not None:
            return self.custom, []
        try:
            return self._networks().builtin_network(), []
        except (OSError, ValueError, ImportError) as exc:
            if self._builtin_problem_reported:
                return None, []
            self._builtin_problem_reported = True
            return None, [f"the built-in net cannot be read ({exc}); playing with the weighted evaluation"]
