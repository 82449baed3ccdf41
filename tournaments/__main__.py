"""``python -m tournaments`` / ``kestrel-tournament``: run a match or tournament from the shell."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from typing import Any

from tournaments.adjudication import open_tablebase
from tournaments.cli import (
    USAGE,
    HelpRequested,
    backend_option,
    build_config,
    check_resume_line,
    recover_option,
    resume_path,
    split_options,
    web_port,
)
from tournaments.config import ConfigError, TournamentConfig
from tournaments.dask_backend import DaskBackend, import_distributed
from tournaments.engines import probe
from tournaments.install import install_hint
from tournaments.pgnout import PgnWriter
from tournaments.plot import PlotUnavailable, write_plot
from tournaments.report import final_report
from tournaments.resumefiles import check_resume_files
from tournaments.runner import Runner, check_setboard, check_variant, new_seed, preflight, record_cost_line
from tournaments.state import RunState, config_of, load_state


async def adapt_default(config: TournamentConfig) -> None:
    """Until Kestrel offers MCTS, the default run plays alpha-beta Kestrel against itself."""
    first, second = config.engines
    result = await probe(first, config.startup_timeout)
    if result.fault is not None:
        raise ConfigError(f"Kestrel's UCI engine did not start ({result.fault}); give engines with -engine")
    mode = result.options.get("SearchMode")
    if mode is None:
        first.options.pop("SearchMode", None)
        second.options.pop("SearchMode", None)
        second.name = "Kestrel-2"
        sys.stderr.write("Kestrel has no SearchMode option yet: it plays against itself\n")
    elif "MCTS" not in (mode.var or []):
        second.options["SearchMode"] = "AlphaBeta"
        second.name = "Kestrel-AB-2"
        sys.stderr.write("Kestrel has no MCTS mode yet: alpha-beta plays against itself\n")


def describe(config: TournamentConfig, total: int) -> str:
    where = f"Dask {config.scheduler}" if config.backend == "dask" else f"concurrency {config.concurrency}"
    lines = [f"{config.event}: {config.kind}, {total} games, {where}"]
    for e in config.engines:
        options = " ".join(f"{k}={v}" for k, v in e.options.items())
        lines.append(f"  {e.name}: {' '.join(e.command)} ({e.protocol}, {e.tc.pgn_string()}) {options}".rstrip())
    return "\n".join(lines)


def check_output_paths(config: TournamentConfig) -> None:
    """Raise ``ConfigError`` for an output file whose folder is missing or not writable.

    Checked before engines start, without creating the files: a run that cannot
    record its games should not play them.
    """
    for what, path in (("PGN", config.pgnout), ("state", config.state_file), ("plot", config.plot),
                       ("EPD", config.epdout), ("log", config.log)):
        if path is None:
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise ConfigError(f"cannot write the {what} file {path}: {folder} is not a writable folder")


async def run(config: TournamentConfig, state: RunState, resume: bool, is_default: bool,
              web: int | None = None) -> int:
    if is_default:
        await adapt_default(config)
        state.config = config.to_dict()
    runner = Runner(config, state, config.state_file)  # loads and checks openings: fail before engines start
    check_output_paths(config)
    if resume:
        check_resume_files(config, state)  # each file it will cut back ends a game there: before anything starts
    if config.tb_path:
        open_tablebase(config.tb_path)  # ConfigError for a path without tables, before any engine starts
    if config.log and not logging.getLogger("chess.engine").isEnabledFor(logging.DEBUG):
        # The dialogue goes to the -log file, not to stderr (-debug shows it there too).
        logging.getLogger("chess.engine").propagate = False
    backend = DaskBackend(config, sys.stderr) if config.backend == "dask" else None
    live_page: LivePage | None = None
    try:
        if backend is not None:
            import_distributed()  # before anything starts: say how to install it
            # Dask's client blocks; it runs in a thread so that this loop stays free.
            probes = await asyncio.to_thread(backend.open)
        else:
            probes = await preflight(config)
        check_setboard(config, probes, runner.openings, runner.specs)
        check_variant(config, probes)
        runner.progress.declared = {name: {o.name: str(o.default) for o in result.options.values()
                                           if o.default is not None} for name, result in probes.items()}
        try:
            # A new run with fastchess's append=false empties the file; -resume cuts it back to its last game.
            runner.pgn = PgnWriter(config.pgnout, truncate_to=state.pgn_offset if resume else
                                   None if config.pgn_append else 0)
            state.pgn_offset = runner.pgn.offset
            runner.epd = PgnWriter(config.epdout, truncate_to=state.epd_offset if resume else
                                   None if config.epd_append else 0)
            state.epd_offset = runner.epd.offset if config.epdout else None
            runner.log = PgnWriter(config.log, truncate_to=state.log_offset if resume else
                                   None if config.log_append else 0)
            state.log_offset = runner.log.offset if config.log else None
            runner.store.snapshot(state)
        except OSError as err:
            raise ConfigError(f"cannot write the PGN or state file: {err}") from None
        done = len(state.games)
        print(describe(config, len(runner.specs)) + (f"\nresuming after {done} finished games" if resume else ""),
              file=sys.stderr, flush=True)
        if web is not None:
            live_page = await start_live_page(runner, web)
        if backend is not None:
            try:
                await asyncio.to_thread(runner.run_with, backend.play)
            except asyncio.CancelledError:
                backend.interrupt()  # Ctrl-C: the thread cannot be cancelled, so let it stop itself
                raise
        else:
            await runner.run()
        # Fold the journal into the state file: the run's games are over, no clock runs now.
        runner.store.close(state)
    finally:
        if live_page is not None:
            await live_page.close()
        with contextlib.suppress(OSError):  # after an error, which it must not hide: the games are in the journal
            runner.store.close()
        for writer in (runner.pgn, runner.epd, runner.log):  # after the store's last sync of them
            writer.close()
        if backend is not None:
            await asyncio.to_thread(backend.close)
    if state.stopped:
        print(f"Stopped early: {state.stopped}", file=sys.stderr)
    print(final_report(config, state.games, runner.progress.declared), flush=True)
    cost = record_cost_line(runner.record_seconds)
    if cost is not None:
        print(cost, file=sys.stderr, flush=True)
    if config.plot:
        plot(config, state)
    return max(crash_trouble(runner), cluster_trouble(backend))


class LivePage:
    """The ``-web`` page of this run, served from this loop (the web package, imported only for -web)."""

    def __init__(self, observer: Any, server: Any, port: int) -> None:
        self.observer = observer
        self.server = server
        self.port = port

    async def close(self) -> None:
        self.observer.close()
        await asyncio.sleep(1.0)  # the pages get the final standings before the server goes
        await self.server.cleanup()


async def start_live_page(runner: Runner, port: int) -> LivePage:
    """Serve the read-only live page on loopback; it observes the runner and changes nothing."""
    try:
        from web.live import LiveRun, start_live_server
    except ImportError:
        raise ConfigError(f"-web needs the web extra: {install_hint('web')}") from None
    observer = LiveRun(runner.config, runner.state.games, len(runner.specs))
    try:
        server, bound = await start_live_server(observer, port)
    except OSError as err:
        raise ConfigError(f"-web: cannot listen on 127.0.0.1:{port}: {err}") from None
    runner.observers.append(observer)
    print(f"Live page: http://127.0.0.1:{bound}/", file=sys.stderr, flush=True)
    return LivePage(observer, server, bound)


def crash_trouble(runner: Runner) -> int:
    """Say why a run stopped for an engine crash or stall without -recover (status 1), or return 0."""
    if runner.crash_stop is None:
        return 0
    played = len(runner.state.games)
    print(f"kestrel-tournament: error: stopped: {runner.crash_stop}, and -recover is off; {played} of "
          f"{len(runner.specs)} games played. The finished games are saved; -resume continues (add -recover to "
          f"restart engines that crash or stall)", file=sys.stderr)
    return 1


def cluster_trouble(backend: DaskBackend | None) -> int:
    """Say why a Dask run ended with games unplayed (status 1), or return 0."""
    if backend is None or (backend.failure is None and not backend.unplayed):
        return 0
    if backend.unplayed:
        games = ", ".join(str(index + 1) for index in sorted(spec.index for spec, _ in backend.unplayed))
        print(f"kestrel-tournament: {len(backend.unplayed)} game(s) not played because their Dask task failed "
              f"(games {games}); -resume plays them", file=sys.stderr)
    if backend.failure is not None:
        print(f"kestrel-tournament: error: stopped: {backend.failure}. The finished games are saved; "
              f"-resume continues once the workers can start the engines", file=sys.stderr)
    return 1


def plot(config: TournamentConfig, state: RunState) -> None:
    """Draw ``-plot``, after the games and results are saved: a failure is a warning, never a lost run."""
    assert config.plot is not None
    try:
        write_plot(config.plot, state.games, config.engines[0].name,
                   config.engines[1].name if len(config.engines) == 2 else "the field", config.sprt)
    except (PlotUnavailable, OSError) as err:
        print(f"No plot: {err}", file=sys.stderr)
    except Exception as err:  # a matplotlib that does not do what the plot needs: the games are safe anyway
        print(f"Warning: no plot ({type(err).__name__}: {err}); the games and results are saved", file=sys.stderr)
    else:
        print(f"Elo plot written to {config.plot}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        line = split_options(argv)
        web = web_port(line)  # checked first: a bad port must not wait for engines
        # python-chess logs every odd engine line; faults that matter reach the PGN anyway.
        logging.basicConfig(format="%(name)s: %(message)s")
        logging.getLogger("chess.engine").setLevel(logging.DEBUG if line.has("debug") else logging.CRITICAL)
        logging.getLogger("asyncio").setLevel(logging.DEBUG if line.has("debug") else logging.ERROR)
        resume = line.get("resume")
        if resume is not None:
            path = resume_path(line)
            if path is None:
                raise ConfigError("-resume needs the state file: -resume FILE, -state FILE or -pgnout FILE")
            state = load_state(path)
            check_resume_line(line, state.config, state.seed)
            config = config_of(state)
            config.state_file = path
            # Safe to change on resume: neither alters which games are played.
            concurrency = line.get("concurrency")
            if concurrency:
                try:
                    config.concurrency = int(concurrency[0])
                except ValueError:
                    raise ConfigError(f"-concurrency: not a number: {concurrency[0]!r}") from None
            recover = recover_option(line)
            if recover is not None:
                config.recover = recover
            backend = backend_option(line)
            if backend is not None:
                config.backend, config.scheduler, config.scale_tc = backend
            is_default = False
        else:
            config, is_default = build_config(line)
            config.validate()
            seed = config.seed if config.seed is not None else new_seed()
            state = RunState(config=config.to_dict(), seed=seed)
        config.validate()
        return asyncio.run(run(config, state, resume is not None, is_default, web))
    except HelpRequested:
        print(USAGE)
        return 0
    except ConfigError as err:
        print(f"kestrel-tournament: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted; finished games are saved (continue with -resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
