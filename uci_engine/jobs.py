"""Work that runs beside the command loop: a search that ends in exactly one `bestmove`."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from uci_engine.output import Output


@dataclass
class Answer:
    """A result that did not need a search (a book move, no legal move)."""

    best_move: str
    ponder_move: str | None = None
    pv: list[str] = field(default_factory=list)

    def itself(self) -> Answer:
        """The answer as a job's search function returns it."""
        return self


class Job:
    """Work in a thread beside the command loop: started once, stopped at most once."""

    def __init__(self, name: str) -> None:
        self._thread = threading.Thread(target=self._main, name=f"kestrel-{name}", daemon=True)
        self._stop_sent = False

    def start(self) -> None:
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    @property
    def stopped(self) -> bool:
        """Whether `stop` was sent: the job ends within milliseconds."""
        return self._stop_sent

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the job to end; whether it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def stop(self) -> None:
        raise NotImplementedError

    def ponderhit(self) -> None:
        """Nothing to do unless the job is a search."""

    def _main(self) -> None:
        raise NotImplementedError


class SearchJob(Job):
    """One `go`: runs `search` in a thread and writes exactly one `bestmove` at its end.

    In `go infinite` and `go ponder` the `bestmove` waits for `stop` (or `ponderhit`), even
    if the search ends by itself first, as the protocol requires.  A `deferred` job (`go
    ponder` with the Ponder option off) does not think until `ponderhit`: then it runs its
    search as a normal timed one; a `stop` first ends it at once.

    `arrived` is the `time.monotonic()` at which the `go` arrived: the search's clock runs
    from then (a deferred job's from the ponderhit), so whatever the engine did before the
    search began is on the clock too.  None: from when the search begins.
    """

    def __init__(self, out: Output, position: Any, search: Callable[[], Any], *,
                 searcher: Any = None, infinite: bool = False, ponder: bool = False,
                 deferred: bool = False, arrived: float | None = None) -> None:
        super().__init__("search")
        self._out = out
        self._position = position          # the job's own copy, to check the searcher's answer
        self._legal = position.legal_moves()
        self._search = search
        self._searcher = searcher          # None when the answer needs no search
        self._infinite = infinite
        self._pondering = ponder
        self._released = threading.Event()
        self._searched = threading.Event()
        self._go_ahead = threading.Event()     # a deferred job may start its search
        if not deferred:
            self._go_ahead.set()
        self._lock = threading.Lock()
        self._arrived = None if deferred else arrived
        if not (infinite or ponder):
            self._released.set()

    def start(self) -> None:
        if self._searcher is not None:
            # From here a stop or ponderhit reaches this search even before its thread
            # enters it, and none can linger into the next one.
            self._searcher.arm(_ms_since(self._arrived))
        super().start()

    # The searcher keeps a stop or ponderhit that comes before its search starts for that
    # search; one sent after the search has returned would wrongly carry over to the next,
    # hence the `_searched` checks.

    def stop(self) -> None:
        with self._lock:
            self._stop_sent = True
            self._pondering = False
            self._released.set()
            self._go_ahead.set()
            if self._searcher is not None and not self._searched.is_set():
                self._searcher.stop()

    def ponderhit(self) -> None:
        with self._lock:
            if not self._pondering:
                return
            self._pondering = False
            if not self._infinite:
                self._released.set()
            if not self._go_ahead.is_set():
                if self._searcher is not None:
                    self._searcher.arm(0)  # its clock runs from this ponderhit
                self._go_ahead.set()       # the deferred search starts now, on the clock
            elif self._searcher is not None and not self._searched.is_set():
                self._searcher.ponderhit()

    def _main(self) -> None:
        result = None
        self._go_ahead.wait()
        try:
            result = self._search()
        except Exception as exc:  # the GUI must still get its bestmove
            self._out.info_string(f"search failed: {type(exc).__name__}: {exc}")
        finally:
            with self._lock:
                self._searched.set()
        self._released.wait()
        best, ponder = self._answer(result)
        self._out.line(f"bestmove {best}" + (f" ponder {ponder}" if ponder else ""))

    def _answer(self, result: Any) -> tuple[str, str | None]:
        """The bestmove and ponder move to send, each checked against the rules."""
        if not self._legal:
            return "0000", None
        best: str | None = getattr(result, "best_move", None)
        if best is None or best not in self._legal:
            if result is not None:
                self._out.info_string(f"the search gave {best!r}, not a legal move; "
                                      f"playing {self._legal[0]} instead")
            return self._legal[0], None
        pv = list(getattr(result, "pv", None) or [])
        ponder: str | None = getattr(result, "ponder_move", None)
        if not ponder and len(pv) >= 2 and pv[0] == best:
            ponder = pv[1]
        if ponder:
            after = self._position.copy()
            after.push(best)
            if not after.is_legal(ponder):
                ponder = None
        return best, ponder


def _ms_since(moment: float | None) -> int | None:
    """Whole milliseconds since `moment` (time.monotonic()); None for None."""
    return None if moment is None else max(0, int((time.monotonic() - moment) * 1000))


class TaskJob(Job):
    """A long command that is not a search (`go perft`, `bench`), run beside the loop so that
    `isready`, `stop` and `quit` are served while it works; `stop` ends it early."""

    def __init__(self, out: Output, task: Callable[[], None], on_stop: Callable[[], None], name: str) -> None:
        super().__init__(name)
        self._out = out
        self._task = task
        self._on_stop = on_stop
        self._name = name

    def stop(self) -> None:
        self._stop_sent = True
        self._on_stop()

    def _main(self) -> None:
        try:
            self._task()
        except Exception as exc:  # the loop must go on
            self._out.info_string(f"{self._name} failed: {type(exc).__name__}: {exc}")
