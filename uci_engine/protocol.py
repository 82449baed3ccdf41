"""The UCI command loop: reads commands, keeps the position and options, runs searches.

Every command is handled on the main thread, which never blocks on a search: the search
runs in a ``SearchJob`` thread that writes its own `info` and `bestmove` lines. Whatever
a line holds, the loop answers with at most an `info string` and goes on reading.
"""

from __future__ import annotations

import dataclasses
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, BinaryIO

import chess

from search.info import Info, SearchInfo, SearchResult
from search.limits import SearchLimits
from search.wdl import material_of

if TYPE_CHECKING:
    from eval.nnue import Network
    from search.board.position import PerftStop, Position
    from search.searcher import Searcher
from uci_engine import ENGINE_AUTHOR, ENGINE_NAME, ENGINE_VERSION, book, core
from uci_engine.book import OpeningBook
from uci_engine.display import board_lines
from uci_engine.evaluation import EvaluationChoice, call_within, failure_reason
from uci_engine.jobs import Answer, Job, SearchJob, TaskJob
from uci_engine.options import OptionError, OptionValue, build_options, shown
from uci_engine.output import Output, format_info
from uci_engine.parsing import CommandError, parse_go, parse_position, parse_setoption
from uci_engine.strength import level_from_options, level_switches, search_at_level
from uci_engine.tablebases import Tablebases
from uci_engine.wdl import wdl_per_mille

MAX_LINE_BYTES = 1 << 20     # far above any real command (a 500-move `position` is ~3 KB)
SHUTDOWN_WAIT_S = 5.0
ROOT_PROBE_CLOCK_SHARE = 5            # a root probe may take a fifth of the clock (plus the increment)
_UNSET = object()

Handler = Callable[[list[str], str], bool | None]


def read_lines(stdin: BinaryIO, out: Output) -> Iterator[str]:
    """Lines of `stdin` as text until it closes. Bytes that are not UTF-8 become U+FFFD, so
    binary garbage is just another unknown command; a runaway line is skipped whole."""
    while True:
        raw = stdin.readline(MAX_LINE_BYTES)
        if not raw:
            return
        if len(raw) == MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = stdin.readline(MAX_LINE_BYTES)
            out.info_string(f"ignored a line longer than {MAX_LINE_BYTES} bytes")
            continue
        yield raw.decode("utf-8", errors="replace")


class UciEngine:
    """The state behind the protocol: options, position, searchers and the running job."""

    def __init__(self, out: Output) -> None:
        self.out = out
        modes = core.search_modes()
        self._evaluation = EvaluationChoice()
        self.options = build_options(modes, self._evaluation.builtin_name())
        self.debug = False
        self._position: Position | None = None   # None until needed: the start position
        self._searchers: dict[str, Searcher] = {}   # SearchMode -> searcher, made on first use
        self._applied: dict[str, dict[str, OptionValue]] = {}   # what each searcher was given
        self._full_switches: dict[str, dict[str, bool]] = {}    # each searcher's switches as made
        self._clear_pending = False
        self._job: Job | None = None
        self._book = OpeningBook()
        self._tablebases = Tablebases()
        self._rng = random.Random()
        self._level_notice = ""          # the last notice of options a strength level sets aside
        self._root_material = 0          # of the position being searched, for UCI_ShowWDL
        # What the last root probe cost per legal move (python-chess reads DTZ for each: 4-10 ms in
        # KQ v KR); 0 until a probe has been timed, so the first one always runs.
        self._probe_seconds_per_move = 0.0
        self._commands: dict[str, Handler] = {
            "uci": self._uci,
            "isready": self._isready,
            "ucinewgame": self._ucinewgame,
            "setoption": self._setoption,
            "position": self._set_position,
            "go": self._go,
            "stop": self._stop,
            "ponderhit": self._ponderhit,
            "quit": self._quit,
            "debug": self._debug,
            "register": self._register,
            "bench": self._bench,
            "d": self._show_board,
            "eval": self._eval,
        }

    # The loop

    def run(self, stdin: BinaryIO) -> int:
        """Serve commands until `quit` or the end of input; the exit status (0)."""
        try:
            for line in read_lines(stdin, self.out):
                if not self.handle(line) or self.out.closed:
                    break
            else:
                if self.searching:
                    self.out.info_string("input closed during a search: stopping it and quitting")
        except KeyboardInterrupt:
            pass
        finally:
            self.shutdown()
        return 0

    def handle(self, line: str) -> bool:
        """Carry out one command line; False when the loop should end."""
        words = line.split()
        if not words:
            self.out.info_string("empty line ignored")
            return True
        # The UCI rule: skip unknown tokens and read the rest of the line ("joho debug on").
        start = next((i for i, word in enumerate(words) if word.lower() in self._commands), None)
        if start is None:
            self.out.info_string(f"unknown command {shown(words[0])} ignored; commands: "
                                 + " ".join(self._commands))
            return True
        if start > 0:
            self.out.info_string(f"skipped unknown {shown(' '.join(words[:start]))} before {words[start]}")
            line = line[[m.start() for m in re.finditer(r"\S+", line)][start]:]
            words = words[start:]
        handler = self._commands[words[0].lower()]
        try:
            return handler(words[1:], line) is not False
        except (CommandError, OptionError) as exc:
            self.out.info_string(str(exc))
        except ImportError as exc:  # a part of the core not built (yet)
            self.out.info_string(f"{words[0]}: not available: {exc}")
        except Exception as exc:  # a bug must cost one command, not the game
            self.out.info_string(f"{words[0]}: internal error: {type(exc).__name__}: {exc}")
        return True

    def shutdown(self) -> bool:
        """Stop any search (its bestmove is still written); whether everything has ended."""
        ended = self._end_job(SHUTDOWN_WAIT_S)
        self._book.close()
        return ended

    # Helpers

    @property
    def searching(self) -> bool:
        return self._job is not None and self._job.running

    def _idle(self) -> bool:
        """Whether no search runs; one already told to stop is waited for (milliseconds),
        so that `stop` followed at once by `setoption` or `bench` works as meant."""
        job = self._job
        if job is None or not job.running:
            return True
        if job.stopped:
            return self._end_job()
        return False

    def _end_job(self, timeout: float | None = None) -> bool:
        """Stop the running job and wait for it (a search writes its bestmove first)."""
        job = self._job
        if job is None:
            return True
        job.stop()
        if not job.wait(timeout):
            return False
        self._job = None
        return True

    def _current_position(self) -> Position:
        if self._position is None:
            self._position = core.position_class()()
        return self._position

    def _network(self) -> Network | None:
        """The net `Use NNUE` and `EvalFile` choose (None: the weighted evaluation), with any problem
        in loading it printed."""
        network, problems = self._evaluation.network(bool(self.options.value("Use NNUE")))
        for problem in problems:
            self.out.info_string(problem)
        return network

    def _sync(self) -> Searcher:
        """The searcher of the selected SearchMode, brought up to date with the options.

        Only called when no search runs: resizing or clearing a table under a running
        search would pull memory from under it.
        """
        # A human level plays with the alpha-beta searcher on one thread (strength.py says why).
        level = level_from_options(self.options)
        mode = "AlphaBeta" if level is not None else str(self.options.value("SearchMode"))
        searcher = self._searchers.get(mode)
        applied = self._applied.setdefault(mode, {})
        if searcher is None:
            hash_mb = self.options.integer("Hash")
            try:
                searcher = core.new_searcher(mode, hash_mb)
            except Exception as exc:
                if mode == "AlphaBeta":
                    raise CommandError(f"the searcher cannot start: {type(exc).__name__}: {exc}") from exc
                self.out.info_string(f"SearchMode {mode} cannot start ({type(exc).__name__}: {exc}); "
                                     "using AlphaBeta")
                self.options["SearchMode"].value = "AlphaBeta"
                return self._sync()
            self._searchers[mode] = searcher
            applied["Hash"] = hash_mb
            # As made: the adopted techniques, less KESTREL_SEARCH_OFF, plus KESTREL_SEARCH_ON.
            self._full_switches[mode] = dict(getattr(searcher, "switches", {}))
        if mode == "AlphaBeta":
            # A level searches with its switches (strength.level_switches); full strength with its own.
            full = self._full_switches[mode]
            switches = full if level is None else level_switches(level, full)
            switched_off = " ".join(sorted(name for name, on in switches.items() if not on))
            if applied.get("level switches", _UNSET) != switched_off:
                configure = getattr(searcher, "configure", None)
                if configure is not None:
                    configure(**switches)
                applied["level switches"] = switched_off
        for option in self.options:
            if option.apply is None or (option.modes and mode not in option.modes):
                continue
            if level is not None and option.name == "Threads":
                if applied.get("Threads") != 1:
                    searcher.threads = 1
                    applied["Threads"] = 1     # so that leaving the level applies Threads again
                continue
            if applied.get(option.name, _UNSET) == option.value:
                continue
            try:
                option.apply(searcher, option.value)
                applied[option.name] = option.value
            except Exception as exc:  # e.g. MemoryError for a Hash the machine cannot give
                previous = applied.get(option.name, option.default)
                self.out.info_string(f"{option.name} {option.value} failed ({type(exc).__name__}: {exc}); "
                                     f"keeping {previous}")
                option.value = previous
        # (A change of evaluation clears the searcher's tables.)
        searcher.set_network(self._network())
        # Probes inside the tree (the root is probed before the search, in _consult_tablebases).
        searcher.set_tablebase_probe(
            self._tablebases.wdl_prober(bool(self.options.value("Syzygy50MoveRule"))),
            self.options.integer("SyzygyProbeDepth"),
            min(self.options.integer("SyzygyProbeLimit"), self._tablebases.max_pieces))
        if self._clear_pending:
            for each in self._searchers.values():
                each.clear()
            self._clear_pending = False
        return searcher

    def _on_info(self, info: Info) -> None:
        """Called by the searcher in its thread; an exception here must not reach the search."""
        try:
            if isinstance(info, SearchInfo) and self.options.value("UCI_ShowWDL"):
                info = dataclasses.replace(info, wdl=wdl_per_mille(info.score, self._root_material))
            self.out.line(format_info(info))
        except Exception as exc:
            self.out.info_string(f"unprintable search report {info!r}: {exc}")

    # Commands; each gets the words after the command and the whole line

    def _uci(self, args: list[str], line: str) -> None:
        self.out.line(f"id name {ENGINE_NAME} {ENGINE_VERSION}")
        self.out.line(f"id author {ENGINE_AUTHOR}")
        self.out.lines(option.declaration() for option in self.options)
        self.out.line("uciok")

    def _isready(self, args: list[str], line: str) -> None:
        # Ready means a `go` can start at once: board and searcher loaded, options applied.
        # While a search runs all that is true already (and the searcher must not be touched).
        if self._idle():
            try:
                self._current_position()
                self._sync()
            except Exception as exc:
                self.out.info_string(f"not ready to search: {type(exc).__name__}: {exc}")
        self.out.line("readyok")

    def _ucinewgame(self, args: list[str], line: str) -> None:
        self._clear_pending = True
        if self._idle():
            self._sync()

    def _setoption(self, args: list[str], line: str) -> None:
        name, text = parse_setoption(line)
        option = self.options.set(name, text)
        if self.debug:
            self.out.info_string(f"{option.name} = {option.value}")
        if option.name == "BookFile":
            self._open_book(str(option.value))
        elif option.name == "Clear Hash":
            self._clear_pending = True
        elif option.name == "EvalFile":
            for message in self._evaluation.open(str(option.value)):
                self.out.info_string(message)
        elif option.name == "SyzygyPath":
            for problem in self._tablebases.open(str(option.value)):
                self.out.info_string(problem)
            if option.value and not self._tablebases.available:
                self.out.info_string("SyzygyPath: no tables loaded; playing without tablebases")
            elif self._tablebases.available:
                self.out.info_string(f"SyzygyPath: tables up to {self._tablebases.max_pieces} pieces loaded")
        if option.apply is not None or option.name in ("Clear Hash", "SearchMode", "EvalFile", "Use NNUE"):
            if self._idle():
                self._sync()
            else:
                self.out.info_string(f"{option.name} takes effect when the current search ends")

    def _open_book(self, path: str) -> None:
        """Play from the book at `path` ("" for none), read off this thread (uci_engine/book.py)."""
        self._book.close()          # whatever happens below, a failure leaves no book, never a stale one
        if not path:
            return
        try:
            reader = call_within(lambda: book.read_book(path), book.READ_WAIT_S, "BookFile reader")
        except Exception as exc:  # any failure (MemoryError too) costs the book, never the engine
            self.out.info_string(f"BookFile {shown(path, 200)} cannot be read ({failure_reason(exc)}); "
                                 "no book in use")
            return
        self._book.use(path, reader)

    def _set_position(self, args: list[str], line: str) -> None:
        fen, moves = parse_position(args)
        position_class = core.position_class()
        chess960 = bool(self.options.value("UCI_Chess960"))
        if fen is not None and not chess960 and _needs_chess960(fen):
            self.out.info_string("position: this FEN has Chess960 castling rights; playing it as Chess960 "
                                 "(castling as king takes rook; set UCI_Chess960 true for such games)")
            chess960 = True
        try:
            position = position_class(fen, chess960=chess960)
        except ValueError as exc:
            raise CommandError(f"position: bad FEN {shown(fen or '', 100)}: {exc}; position unchanged") from exc
        for number, move in enumerate(moves, 1):
            if not chess960 and _is_king_takes_rook(position, move):
                self.out.info_string(f"position: move {number} {shown(move)} is Chess960 castling notation; "
                                     "read as castling (UCI_Chess960 is off)")
            try:
                position.push(move)
            except ValueError as exc:
                raise CommandError(f"position: move {number} {shown(move)}: {exc}; position unchanged") from exc
        self._position = position

    def _go(self, args: list[str], line: str) -> None:
        arrived = time.monotonic()    # the search's clock runs from here (SearchJob)
        go = parse_go(args)
        for warning in go.warnings:
            self.out.info_string(warning)
        try:
            root = self._current_position().copy()
        except Exception as exc:
            self.out.info_string(f"go: the board cannot load: {type(exc).__name__}: {exc}")
            self.out.line("bestmove 0000")
            return
        self._end_job()   # a go during a search ends that search first: one bestmove per go
        if go.perft is not None:
            stop = core.module("search.board.position").PerftStop()
            self._start(TaskJob(self.out, lambda: self._perft(root, go.perft or 1, stop), stop.set, "perft"))
            return
        legal = root.legal_moves()
        searchmoves = [m for m in go.searchmoves if m in legal]
        if len(searchmoves) < len(go.searchmoves):
            dropped = [m for m in go.searchmoves if m not in legal]
            self.out.info_string(f"go searchmoves: {shown(' '.join(dropped))} not legal here; ignored"
                                 + ("" if searchmoves else "; searching every move"))
        limits = core.limits_class()(**go.numbers, infinite=go.infinite, ponder=go.ponder,
                                     searchmoves=searchmoves)
        if self.debug:
            self.out.info_string(f"go: {limits}")
        answer = self._answer_without_search(root, legal, limits)
        if answer is None and legal:
            answer = self._consult_tablebases(root, legal, limits)
        # With Ponder off a `go ponder` waits without thinking: the search starts at ponderhit.
        deferred = go.ponder and not self.options.value("Ponder")
        if deferred:
            limits.ponder = False
        search: Callable[[], SearchResult | Answer | None]
        if answer is not None:
            search = answer.itself
            searcher = None
        else:
            try:
                searcher = self._sync()
            except CommandError as exc:
                self.out.info_string(str(exc))
                searcher = None
                search = _no_result   # the job then plays a legal move and says so
            else:
                search = self._search_function(searcher, root, limits)
        self._start(SearchJob(self.out, root, search, searcher=searcher,
                              infinite=go.infinite, ponder=go.ponder, deferred=deferred, arrived=arrived))

    def _search_function(self, searcher: Searcher, root: Position,
                         limits: SearchLimits) -> Callable[[], SearchResult]:
        """The search this `go` runs: at full strength, or at the level the options ask for."""
        self._root_material = material_of(root)
        multipv = int(self.options.value("MultiPV") or 1)
        level = level_from_options(self.options)
        if level is None:
            searcher.multipv = multipv
            return lambda: searcher.search(root, limits, self._on_info)
        set_aside = [f"{name} {self.options.value(name)}" for name, full in (("SearchMode", "AlphaBeta"),
                     ("Threads", 1)) if self.options.value(name) != full]
        notice = (f"a strength level plays with AlphaBeta on one thread; {' and '.join(set_aside)} "
                  "apply at full strength") if set_aside else ""
        if notice and notice != self._level_notice:
            self.out.info_string(notice)
        self._level_notice = notice
        # A weaker level sees less (fewer nodes) and looks at a few moves to choose from.
        if self.debug:
            self.out.info_string(f"strength: Elo {level.elo}, {level.nodes} nodes, {level.lines} lines")
        return lambda: search_at_level(searcher, root, limits, level, self._rng, self._on_info, multipv)[0]

    def _consult_tablebases(self, root: Position, legal: list[str], limits: SearchLimits) -> Answer | None:
        """Play a tablebase position from the tables, or narrow the search to the moves that keep
        its result; None when the tables do not cover it."""
        if limits.searchmoves:
            return None
        board = self._tablebases.covered_board(root.fen(), root.chess960, self.options.integer("SyzygyProbeLimit"))
        if board is None:
            return None
        moves = len(legal)
        budget = self._move_budget_seconds(root, limits)
        if budget is not None and self._probe_seconds_per_move * moves > budget:
            # A probe slower than the move's share of the clock would lose a won ending on time
            # (it happened twice in 200 games against Stockfish): the search, which probes WDL
            # inside the tree and keeps to the clock, plays this move instead, and the clock it
            # saves lets the next moves probe again.
            cost_ms = self._probe_seconds_per_move * moves * 1000
            self.out.info_string(f"tablebases: the root probe (about {cost_ms:.0f} ms) "
                                 f"exceeds this move's {budget * 1000:.0f} ms; searching")
            return None
        started = time.perf_counter()
        probe = self._tablebases.probe_root(board, bool(self.options.value("Syzygy50MoveRule")))
        if probe is None:
            return None
        self._probe_seconds_per_move = (time.perf_counter() - started) / max(moves, 1)
        # UCI's score of a tablebase result (cp 20000 for a win: no mate distance is known).
        wdl = ""
        if self.options.value("UCI_ShowWDL"):
            win, draw, loss = (1000, 0, 0) if probe.wdl > 1 else ((0, 0, 1000) if probe.wdl < -1 else (0, 1000, 0))
            wdl = f" wdl {win} {draw} {loss}"
        if probe.decided:
            self.out.line(f"info depth 1 seldepth 1 multipv 1 score cp {probe.score_cp}{wdl} nodes 0 "
                          f"tbhits {probe.tbhits} time 0 pv {probe.moves[0]}")
            return Answer(probe.moves[0])
        self.out.info_string(f"tablebases: {len(probe.moves)} moves keep the result "
                             f"({'win' if probe.wdl > 0 else 'draw' if probe.wdl == 0 else 'loss'}); searching those")
        limits.searchmoves = probe.moves
        return None

    def _move_budget_seconds(self, root: Position, limits: SearchLimits) -> float | None:
        """What this move may spend outside the search on a clock: a fifth of the time left
        (less Move Overhead) plus the increment. None without a clock: a fixed move time costs no
        game when overrun, and there the tables' move is worth more than the time."""
        left, increment = (limits.wtime, limits.winc) if root.turn else (limits.btime, limits.binc)
        if left is None or limits.movetime is not None:
            return None
        overhead = self.options.integer("Move Overhead")
        return (max(left - overhead, 0) / ROOT_PROBE_CLOCK_SHARE + (increment or 0)) / 1000

    def _perft(self, root: Position, depth: int, stop: PerftStop) -> None:
        """`go perft N`: leaves per root move and in all, as Stockfish prints them; run as a job,
        so that `stop` ends it (with the root moves counted so far) and `isready` is answered."""
        start = time.perf_counter()
        divide = root.divide(depth, stop)
        self.out.lines(f"{move}: {count}" for move, count in divide.items())
        self.out.line("")
        if stop.is_set:
            self.out.info_string(f"perft stopped after {len(divide)} root moves")
        self.out.line(f"Nodes searched: {sum(divide.values())}")
        if self.debug:
            self.out.info_string(f"perft {depth} took {(time.perf_counter() - start) * 1000:.0f} ms")

    def _answer_without_search(self, root: Position, legal: list[str], limits: SearchLimits) -> Answer | None:
        """The answer when there is no move to search, or the book has one."""
        if not legal:
            self.out.line("info depth 0 score " + ("mate 0" if root.is_check() else "cp 0"))
            return Answer("0000")
        # The book plays games; a fixed depth, node count or mate search is analysis.
        if (not self.options.value("OwnBook") or limits.infinite or limits.searchmoves
                or limits.depth or limits.nodes or limits.mate):
            return None
        if not self._book.is_open:
            if self.debug:
                self.out.info_string("OwnBook is on but no BookFile is loaded")
            return None
        try:
            choice = self._book.choose(root.fen(), legal)
        except Exception as exc:  # a corrupt book must not cost the move
            self.out.info_string(f"book lookup failed ({type(exc).__name__}: {exc}); searching")
            return None
        if choice is None:
            return None
        self.out.info_string(f"book move {choice[0]}")
        return Answer(choice[0], choice[1])

    def _start(self, job: Job) -> None:
        self._job = job
        job.start()

    def _stop(self, args: list[str], line: str) -> None:
        self._tell_search("stop")

    def _ponderhit(self, args: list[str], line: str) -> None:
        self._tell_search("ponderhit")

    def _tell_search(self, command: str) -> None:
        """Pass `stop` or `ponderhit` to the running search; without one they mean nothing."""
        if self._job is not None and self._job.running:
            getattr(self._job, command)()
        elif self.debug:
            self.out.info_string(f"{command}: no search is running")

    def _quit(self, args: list[str], line: str) -> bool:
        return False

    def _debug(self, args: list[str], line: str) -> None:
        if len(args) != 1 or args[0].lower() not in ("on", "off"):
            raise CommandError("expected debug on or debug off")
        self.debug = args[0].lower() == "on"

    def _register(self, args: list[str], line: str) -> None:
        self.out.info_string("Kestrel needs no registration")

    def _bench(self, args: list[str], line: str) -> None:
        if not self._idle():
            raise CommandError("bench: not while a search is running (send stop first)")
        depth = None
        if args:
            if not args[0].isdigit() or not 1 <= int(args[0]) <= 64:
                raise CommandError(f"bench: depth must be a number from 1 to 64, not {shown(args[0])}")
            depth = int(args[0])
        bench = core.module("search.bench")
        # The searcher a game would get: the environment's switches (KESTREL_SEARCH_OFF/ON) included,
        # so that an ablation's bench signature is the one its games play with.
        try:
            searcher = core.new_searcher("AlphaBeta", int(self.options.value("Hash") or 16))
        except ValueError as exc:
            raise CommandError(f"bench: {exc}") from exc
        searcher.set_network(self._network())      # the evaluation the options choose
        stopped = threading.Event()

        def stop() -> None:
            stopped.set()
            searcher.stop()

        self._start(TaskJob(self.out, lambda: bench.run_bench(depth, out=self.out.line, searcher=searcher,
                                                              should_stop=stopped.is_set), stop, "bench"))

    def _show_board(self, args: list[str], line: str) -> None:
        self.out.lines(board_lines(self._current_position()))

    def _eval(self, args: list[str], line: str) -> None:
        """The weighted evaluation term by term, then the net's score when `Use NNUE` is on."""
        evaluation = core.module("eval")
        position = self._current_position()
        self.out.lines(evaluation.format_breakdown(evaluation.breakdown(position)).splitlines())
        network = self._network()
        if network is not None:
            score = core.module("eval.nnue_api").nnue_evaluate(network, position)
            self.out.line(f"NNUE evaluation {score} (side to move), the one the search uses")


def _no_result() -> None:
    return None


def _needs_chess960(fen: str) -> bool:
    """Whether `fen` has castling rights that only Chess960 has (a king or rook off its home)."""
    try:
        return chess.Board(fen, chess960=True).has_chess960_castling_rights()
    except ValueError:
        return False     # Kestrel's own parser says what is wrong with it


def _is_king_takes_rook(position: Position, move: str) -> bool:
    """`move` is written as the king capturing its own rook (Chess960's castling notation)."""
    if len(move) != 4 or not all(c in "abcdefgh12345678" for c in move):
        return False
    try:
        origin = chess.parse_square(move[:2])
        target = chess.parse_square(move[2:])
    except ValueError:
        return False
    king, rook = position.piece_at(origin), position.piece_at(target)
    return king is not None and rook is not None and king in "Kk" and rook == ("R" if king == "K" else "r")
