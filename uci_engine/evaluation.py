"""Which evaluation the searchers play with: the built-in net, an `EvalFile` net, or the weighted one.

`Use NNUE` picks the learned evaluation (on by default: the built-in net beats the weighted one in
games, docs/nnue.md); `EvalFile` names its net, the built-in one (shipped in the package) by default.
The human levels (`UCI_LimitStrength`, `Skill Level` below 20) play with the same evaluation, with
which their calibration against Stockfish's `UCI_Elo` scale was measured (docs/play.md).  A net file
that is missing, truncated or corrupt, or that is no file at all (a FIFO, a device, a directory), is
reported with an `info string` naming the problem, and the built-in net takes its place; so does any
other failure while loading, out of memory included.  The nets are read through ``eval.networks`` (the
compiled core, imported on first need), on a helper thread that the command thread waits for at most
`LOAD_WAIT_S`: a file system that stalls cannot keep `isready`, `stop` and `quit` unanswered.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from uci_engine import core
from uci_engine.options import shown

if TYPE_CHECKING:
    from eval.nnue import Network

# The largest net is about 2 MB, read in milliseconds from a regular file (the only kind the reader
# opens); a read that takes this long is stuck, and the built-in net plays instead.
LOAD_WAIT_S = 10.0

T = TypeVar("T")


def call_within(call: Callable[[], T], seconds: float, name: str) -> T:
    """`call()` run on a helper thread: its result, or the exception it raised; TimeoutError if it has not
    returned within `seconds` (it is then left to end on its own, and what it returns is dropped)."""
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # handed to the caller, who decides
            outcome.append((False, exc))

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    thread.join(seconds)
    if not outcome:
        raise TimeoutError(f"reading took more than {seconds:g} s")
    ok, value = outcome.pop()
    if ok:
        return value  # type: ignore[no-any-return]
    try:
        raise value
    finally:
        # The exception's traceback holds this frame: a reference back to the exception would make
        # a cycle that keeps the callers' frames (and the engine's searchers) alive until a GC pass.
        del value


def failure_reason(exc: BaseException) -> str:
    """An exception in words for an `info string`: the system's words for OSError, the message for
    ValueError, the type and message for anything else (a MemoryError has no message)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, ValueError) and str(exc):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


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
        # The previous net goes first: whatever happens below, a failure leaves the built-in one.
        self.custom, self.custom_path = None, ""
        try:
            network, params = call_within(lambda: networks.load_network(value), LOAD_WAIT_S, "EvalFile reader")
        except Exception as exc:  # any failure, MemoryError included, costs the net, never the engine
            return [f"EvalFile {shown(value, 200)} cannot be used ({failure_reason(exc)}); "
                    "the built-in net takes its place"]
        self.custom, self.custom_path = network, value
        buckets = f", {params.buckets} output buckets" if params.buckets > 1 else ""
        mirrored = ", king-mirrored inputs" if params.feature_set else ""
        return [f"EvalFile {shown(value, 200)} loaded: {params.hidden} hidden units{buckets}{mirrored}"]

    def network(self, use_nnue: bool) -> tuple[Network | None, list[str]]:
        """The net to search with (None: the weighted evaluation) and any lines to print."""
        if not use_nnue:
            return None, []
        if self.custom is not None:
            return self.custom, []
        try:
            return self._networks().builtin_network(), []
        except Exception as exc:  # a broken install (or no memory) costs the net, never the engine
            if self._builtin_problem_reported:
                return None, []
            self._builtin_problem_reported = True
            return None, [f"the built-in net cannot be read ({failure_reason(exc)}); "
                          "playing with the weighted evaluation"]
