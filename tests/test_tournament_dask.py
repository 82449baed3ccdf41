"""The Dask backend (``-backend dask local:N``) with real engines: results, a killed worker, a killed coordinator.

dask[distributed] is in the test extra, so these tests always run. Each one starts a
LocalCluster of worker processes, which takes a few seconds on a loaded machine.
"""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from conftest import REPO_ROOT

from tests.test_tournament import (
    BOOK,
    FAKE,
    STOCKFISH,
    _read_state,
    _require,
    _state_games,
    book_position,
    check_replay,
    fake,
    kill_after_games,
    read_games,
    run_cli,
)


def _match(pgn: Path, *extra: str) -> list:
    return ["-engine", f"cmd={STOCKFISH}", "name=d1", "depth=1", "-engine", f"cmd={STOCKFISH}", "name=d2",
            "depth=2", "-each", "option.Threads=1", "-games", "2", "-rounds", "2", "-maxmoves", "20",
            "-openings", f"file={BOOK}", "order=random", "-srand", "3", "-pgnout", str(pgn), *extra]


@pytest.mark.slow
def test_local_cluster_plays_the_same_schedule_as_the_local_backend(tmp_path):
    _require(STOCKFISH, "stockfish")
    local, dask = tmp_path / "local.pgn", tmp_path / "dask.pgn"
    proc = run_cli(_match(local), timeout=120)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli(_match(dask, "-backend", "dask", "local:2"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Dask local:2" in proc.stderr and "Dask worker" in proc.stderr
    assert "games/min" in proc.stderr and "between games on a worker" in proc.stderr
    assert "Score of d1 vs d2:" in proc.stdout and "Ptnml(0-2):" in proc.stdout

    def schedule(path):
        games = read_games(path)
        for game in games:
            check_replay(game)
        return sorted((g.headers["Round"], g.headers["White"], g.headers["Black"], g.headers["WhiteTimeControl"],
                       book_position(g).epd()) for g in games)

    expected = schedule(local)
    assert len(expected) == 4 and schedule(dask) == expected  # same games, colours and openings
    state = _read_state(Path(str(dask) + ".state.json"))
    assert state["config"]["backend"] == "dask" and len(state["games"]) == 4


def _workers_with_engines(coordinator: psutil.Process) -> list:
    """Dask worker processes (children of the coordinator) that are playing a game right now."""
    found = []
    for child in coordinator.children():
        try:
            if "spawn_main" in " ".join(child.cmdline()) and any(
                    "stockfish" in c.name() for c in child.children()):
                found.append(child)
        except psutil.Error:
            pass
    return found


@pytest.mark.slow
def test_a_worker_killed_mid_game_loses_nothing(tmp_path):
    _require(STOCKFISH, "stockfish")
    pgn = tmp_path / "killed.pgn"
    state = Path(str(pgn) + ".state.json")
    args = ["-engine", f"cmd={STOCKFISH}", "name=a", "-engine", f"cmd={STOCKFISH}", "name=b",
            "-each", "st=0.05", "timemargin=500", "option.Threads=1", "-games", "2", "-rounds", "4",
            "-maxmoves", "30", "-backend", "dask", "local:2", "-pgnout", str(pgn)]
    runner = subprocess.Popen([sys.executable, "-m", "tournaments", *args], cwd=REPO_ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    coordinator = psutil.Process(runner.pid)
    deadline = time.monotonic() + 90
    victim = None
    while victim is None and runner.poll() is None and time.monotonic() < deadline:
        if _state_games(state) >= 1:
            busy = _workers_with_engines(coordinator)
            victim = busy[0] if busy else None
        time.sleep(0.05)
    assert victim is not None, "no worker was caught in the middle of a game"
    recorded_before = _state_games(state)
    os.kill(victim.pid, signal.SIGKILL)
    out, err = runner.communicate(timeout=120)
    assert runner.returncode == 0, err
    assert recorded_before < 8
    games = read_games(pgn)
    rounds = [g.headers["Round"] for g in games]
    assert len(games) == 8 and len(set(rounds)) == 8  # every game recorded, none twice
    for game in games:
        check_replay(game)
        assert game.headers["Termination"] in ("normal", "adjudication"), game.end().comment
    assert _state_games(state) == 8


@pytest.mark.slow
def test_coordinator_killed_then_resume_on_the_cluster(tmp_path):
    _require(STOCKFISH, "stockfish")
    pgn = tmp_path / "resume.pgn"
    state = Path(str(pgn) + ".state.json")
    args = ["-engine", f"cmd={STOCKFISH}", "name=a", "-engine", f"cmd={STOCKFISH}", "name=b", "-each", "depth=2",
            "-games", "2", "-rounds", "5", "-maxmoves", "25", "-openings", f"file={BOOK}", "order=random",
            "-srand", "9", "-backend", "dask", "local:2", "-pgnout", str(pgn)]
    before = kill_after_games(args, state, games=3, timeout=90)
    assert 3 <= len(before["games"]) < 10, "the run should have been killed part-way"
    kept = pgn.read_bytes()[:before["pgn_offset"]]
    proc = run_cli(["-resume", str(state)], timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f"resuming after {len(before['games'])} finished games" in proc.stderr and "Dask local:2" in proc.stderr
    assert pgn.read_bytes().startswith(kept)
    games = read_games(pgn)
    assert sorted(int(g.headers["Round"].split(".")[1]) for g in games) == list(range(1, 11))
    for game in games:
        check_replay(game)


@pytest.mark.parametrize("backend, engine, message", [
    (["dask", "tcp://127.0.0.1:9"], STOCKFISH, "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'"),
    (["dask", "local:1"], "/nonexistent/engine", "worker 0: engine 'bad': cannot start"),
    (["dask"], STOCKFISH, "-backend takes local, or dask and a scheduler address"),
])
def test_bad_cluster_input_stops_before_any_game(tmp_path, backend, engine, message):
    pgn = tmp_path / "none.pgn"
    proc = run_cli(["-engine", f"cmd={STOCKFISH}", "name=good", "-engine", f"cmd={engine}", "name=bad",
                    "-each", "depth=1", "-startup-timeout", "3", "-backend", *backend, "-pgnout", str(pgn)],
                   timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert not pgn.exists() or pgn.read_text() == ""


def test_without_dask_the_backend_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    from tournaments.__main__ import main
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if dask[distributed] were not installed
    code = main(["-engine", "cmd=/nonexistent/a", "-engine", "cmd=/nonexistent/b", "-each", "tc=1",
                 "-backend", "dask", "local:1"])
    assert code == 2
    err = capsys.readouterr().err
    assert "pip install " in err and '[cluster]"' in err and "kestrel-chess[" not in err  # the checkout's extra


def test_time_scale_multiplies_clocks_but_not_the_pgn_tag():
    from tournaments.dask_backend import MAX_SCALE, scale_factor
    from tournaments.timecontrol import TimeControl
    tc = TimeControl.parse("10+0.1", margin="0.05")
    slow = tc.scaled(scale_factor(200_000, 100_000))  # a worker half as fast gets twice the time
    assert (slow.base, slow.increment, slow.margin) == (20.0, 0.2, 0.05)
    assert slow.pgn_string() == "20+0.2" and tc.pgn_string() == "10+0.1"
    assert scale_factor(1.0, 1000.0) == 1 / MAX_SCALE and scale_factor(0.0, 5.0) == 1.0


@pytest.mark.slow
def test_an_sprt_decision_cancels_the_games_not_started(tmp_path):
    _require(STOCKFISH, "stockfish")
    pgn = tmp_path / "sprt.pgn"
    proc = run_cli(["-engine", f"cmd={STOCKFISH}", "name=sf", "depth=1", "-engine", fake("illegal", 0),
                    "name=illegal", "-each", "tc=1+0.01", "-games", "60", "-backend", "dask", "local:2", "scaletc",
                    "-sprt", "elo0=0", "elo1=200", "model=logistic", "-pgnout", str(pgn)], timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "H1 accepted" in proc.stdout
    games = read_games(pgn)
    rounds = [g.headers["Round"] for g in games]
    # The LLR passes its bound at the 16th game (8 pairs, as with the local backend); at most the games
    # already handed to the two workers finish after it, the other 40-odd are never played.
    assert 16 <= len(games) <= 22 and len(set(rounds)) == len(games)
    assert all(g.headers["Termination"] == "rules infraction" for g in games)
    # scaletc: each worker's clocks are scaled by its measured speed, the PGN keeps the nominal control.
    assert len(re.findall(r"Dask worker \d: speed \d+ kpos/s, clocks x\d\.\d\d", proc.stderr)) == 2
    assert {g.headers[tag] for g in games for tag in ("WhiteTimeControl", "BlackTimeControl")} == \
        {"1+0.01 depth=1", "1+0.01"}


# --- infrastructure failures are not results ----------------------------------------------------------

PICKY = str(REPO_ROOT / "tests" / "fake_engines" / "picky_uci.py")


def _picky(folder: Path, policy: str, mode: str = "good") -> str:
    folder.mkdir(exist_ok=True)
    return f"cmd={sys.executable} {PICKY} {folder} {policy} {mode}"


def _fake_match(pgn: Path, picky: str, *extra: str) -> list:
    return ["-engine", fake("good"), "name=a", "-engine", picky, "name=b", "-each", "tc=10+0.1",
            "-maxmoves", "15", "-pgnout", str(pgn), *extra]


def _no_engine_faults(games: list) -> None:
    for game in games:
        assert game.headers["Termination"] in ("normal", "adjudication"), game.end().comment
        check_replay(game)


@pytest.mark.slow
def test_an_engine_that_cannot_start_on_one_worker_is_played_elsewhere(tmp_path):
    # Both workers pass the start-up check; then the engine cannot start again on one of them.
    pgn = tmp_path / "one.pgn"
    proc = run_cli(_fake_match(pgn, _picky(tmp_path / "p", "check-only"), "-games", "2", "-rounds", "3",
                               "-backend", "dask", "local:2"), timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("gets no more games of this run: engine 'b' cannot start") == 1, proc.stderr
    games = read_games(pgn)
    assert sorted(int(g.headers["Round"].split(".")[1]) for g in games) == list(range(1, 7))
    _no_engine_faults(games)  # never a crash loss for the engine: the worker was at fault
    assert _state_games(Path(str(pgn) + ".state.json")) == 6


@pytest.mark.slow
def test_when_no_worker_can_start_an_engine_the_run_stops_without_scoring(tmp_path):
    pgn = tmp_path / "none.pgn"
    proc = run_cli(_fake_match(pgn, _picky(tmp_path / "p", "check-only-all"), "-games", "2", "-rounds", "2",
                               "-backend", "dask", "local:2"), timeout=180)
    assert proc.returncode == 1, proc.stderr
    assert "error: stopped: no Dask worker can play this run's games" in proc.stderr, proc.stderr
    assert "-resume continues" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert read_games(pgn) == [] and _state_games(Path(str(pgn) + ".state.json")) == 0


@pytest.mark.slow
def test_a_failed_task_is_not_a_result_and_resume_plays_it(tmp_path):
    folder = tmp_path / "p"
    pgn = tmp_path / "killed.pgn"
    engine = _picky(folder, "kill-worker")
    (folder / "kill").write_text("")  # the engine kills its worker whenever a game starts it
    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}  # give up at the first death
    proc = subprocess.run([sys.executable, "-m", "tournaments", *_fake_match(pgn, engine, "-games", "2",
                           "-backend", "dask", "local:1")], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=180, env=env)
    assert proc.returncode == 1, proc.stderr
    assert "Warning: game 1 was not played: Dask workers died playing it" in proc.stderr, proc.stderr
    assert "2 game(s) not played because their Dask task failed (games 1, 2); -resume plays them" in proc.stderr
    state = Path(str(pgn) + ".state.json")
    assert read_games(pgn) == [] and _state_games(state) == 0  # no "*" game recorded as finished
    (folder / "kill").unlink()
    proc = run_cli(["-resume", str(state)], timeout=180)
    assert proc.returncode == 0, proc.stderr
    games = read_games(pgn)
    assert len(games) == 2 and _state_games(state) == 2
    _no_engine_faults(games)


def _cluster(workers: int):
    import distributed  # the test extra installs dask[distributed]: missing, it is a failure
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    return distributed, cluster


@pytest.mark.slow
def test_a_worker_that_joins_later_is_checked_before_it_gets_games(tmp_path):
    distributed, cluster = _cluster(1)
    try:
        pgn = tmp_path / "late.pgn"
        state = Path(str(pgn) + ".state.json")
        # The engine starts only on the first worker; the one that joins later lacks it.
        args = _fake_match(pgn, _picky(tmp_path / "p", "first-worker"), "-games", "2", "-rounds", "4",
                           "-wait", "1500", "-backend", "dask", cluster.scheduler_address)
        runner = subprocess.Popen([sys.executable, "-m", "tournaments", *args], cwd=REPO_ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 90
        while _state_games(state) < 1 and runner.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        cluster.scale(2)
        out, err = runner.communicate(timeout=180)
        assert runner.returncode == 0, err
        assert re.search(r"Warning: Dask worker \S+ gets no more games of this run: engine 'b': failed its "
                         r"start-up check", err), err
        games = read_games(pgn)
        assert len(games) == 8 and _state_games(state) == 8
        _no_engine_faults(games)
    finally:
        cluster.close()


def _engines_with(marker: str) -> list:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        with_marker = marker in " ".join(proc.info["cmdline"] or [])
        if with_marker and "fake_uci" in " ".join(proc.info["cmdline"] or []):
            found.append(proc)
    return found


@pytest.mark.slow
def test_a_killed_coordinator_leaves_no_engine_running_on_the_workers(tmp_path):
    from tournaments.dask_backend import IDLE_CLOSE_S
    distributed, cluster = _cluster(2)
    try:
        marker = tmp_path.name  # an argument fake_uci.py ignores, to find its processes
        slow = f"cmd={sys.executable} {FAKE} slow 0 {marker}"  # 3 s a move: the games last
        good = f"cmd={sys.executable} {FAKE} good 3 {marker}"
        args = ["-engine", slow, "name=a", "-engine", good, "name=b", "-each", "tc=60+1", "-games", "2",
                "-rounds", "4", "-maxmoves", "30", "-backend", "dask", cluster.scheduler_address,
                "-pgnout", str(tmp_path / "k.pgn")]
        runner = subprocess.Popen([sys.executable, "-m", "tournaments", *args], cwd=REPO_ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 90
        while len(_engines_with(marker)) < 4 and time.monotonic() < deadline:  # two games under way
            time.sleep(0.1)
        assert len(_engines_with(marker)) >= 4
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
        # The workers live on; the games they were playing stop and their engines quit.
        deadline = time.monotonic() + IDLE_CLOSE_S + 20
        while _engines_with(marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _engines_with(marker) == []
        assert len(cluster.scheduler_info["workers"]) == 2
    finally:
        cluster.close()
