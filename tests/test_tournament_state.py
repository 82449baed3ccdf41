"""The resume state: snapshot and journal, crashes at every step, and folders that cannot be fsynced (Windows)."""

import io
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from tests.test_tournament import FAKE, read_games
from tournaments import state as state_module
from tournaments.config import ConfigError, EngineConfig, SprtConfig, TournamentConfig
from tournaments.game import GameOutcome
from tournaments.runner import Runner
from tournaments.state import FinishedGame, RunState, StateStore, journal_path, load_state, save_state


def _config() -> TournamentConfig:
    engines = [EngineConfig("a", [sys.executable, FAKE, "good"]), EngineConfig("b", [sys.executable, FAKE, "good"])]
    return TournamentConfig(engines=engines, games=2, rounds=100)


def _game(index: int) -> FinishedGame:
    return FinishedGame(index, index // 2, index // 2 + 1, "a" if index % 2 == 0 else "b",
                        "b" if index % 2 == 0 else "a", index // 2, "1-0", "normal", "White mates", 40)


def _append(store: StateStore, state: RunState, count: int) -> None:
    for _ in range(count):
        game = _game(len(state.games))
        state.games.append(game)
        state.pgn_offset += 100
        store.append(state, game)


def _journals(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.glob(path.name + ".journal-*"))


def test_record_appends_a_journal_line_and_leaves_the_state_file_alone(tmp_path):
    path = tmp_path / "run.pgn.state.json"
    state = RunState(config=_config().to_dict(), seed=7)
    runner = Runner(_config(), state, str(path), stream=io.StringIO())
    runner.store.snapshot(state)
    before = path.read_bytes(), os.stat(path).st_ino
    for i in range(30):
        spec = runner.specs[i]
        runner.record(GameOutcome(spec, "1/2-1/2", "adjudication", "Draw by adjudication (scores)", "", 60))
    # The snapshot is not rewritten per game (its cost would grow with the run): one line each goes to the journal.
    assert (path.read_bytes(), os.stat(path).st_ino) == before
    [journal] = _journals(path)
    lines = (tmp_path / journal).read_text().splitlines()
    assert len(lines) == 30 and json.loads(lines[-1])["n"] == 30
    resumed = load_state(str(path))
    assert [g.index for g in resumed.games] == list(range(30)) and resumed.seed == 7
    runner.store.close(state)
    data = json.loads(path.read_text())  # the end of the run folds the journal into the snapshot
    assert len(data["games"]) == 30 and data["journal"] > 1
    assert (tmp_path / journal).exists() is False and _journals(path) == [f"{path.name}.journal-{data['journal']}"]


def test_resume_reads_snapshot_and_journal_and_ignores_a_torn_last_line(tmp_path):
    path = tmp_path / "s.json"
    state = RunState(config=_config().to_dict(), seed=1)
    store = StateStore(str(path))
    store.snapshot(state)
    _append(store, state, 5)
    state.stopped = "SPRT: H1 accepted"
    state.epd_offset = 77
    _append(store, state, 1)
    store.close()
    loaded = load_state(str(path))
    assert len(loaded.games) == 6 and loaded.pgn_offset == 600 and loaded.stopped == "SPRT: H1 accepted"
    assert loaded.epd_offset == 77 and loaded.games[5] == _game(5)
    # A crash in the middle of the seventh line: the six games before it are kept, the seventh is played again.
    [journal] = _journals(path)
    with open(tmp_path / journal, "ab") as f:
        f.write(b'{"n": 7, "game": {"index": 6, "pair": 3, "rou')
    loaded = load_state(str(path))
    assert len(loaded.games) == 6 and loaded.pgn_offset == 600


def test_a_damaged_line_inside_the_journal_stops_the_resume(tmp_path):
    path = tmp_path / "s.json"
    state = RunState(config=_config().to_dict(), seed=1)
    store = StateStore(str(path))
    store.snapshot(state)
    _append(store, state, 3)
    store.close()
    [journal] = _journals(path)
    lines = (tmp_path / journal).read_bytes().split(b"\n")
    lines[1] = lines[1][:20]
    (tmp_path / journal).write_bytes(b"\n".join(lines))
    with pytest.raises(ConfigError, match="damaged: line 2 is not JSON"):
        load_state(str(path))


def test_compactions_fold_the_journal_into_the_snapshot_and_lose_no_game(tmp_path):
    path = tmp_path / "s.json"
    state = RunState(config=_config().to_dict(), seed=1)
    store = StateStore(str(path), compact_after=4)
    store.snapshot(state)
    for _ in range(20):
        _append(store, state, 3)
        assert len(_journals(path)) <= 2
        assert len(load_state(str(path)).games) == len(state.games)  # readable at every moment
        store.flush()  # the compaction, if one started, is written
    snapshot = json.loads(path.read_text())
    # Compacted while the run went on, each time the journal held as many games as the snapshot: 4, 8, 16, 32.
    assert len(snapshot["games"]) == 32
    assert _journals(path) == [f"s.json.journal-{snapshot['journal']}"]
    loaded = load_state(str(path))
    assert loaded.games == state.games and loaded.pgn_offset == 6000
    store.close(state)


def test_a_read_overtaken_by_a_compaction_is_made_again(tmp_path, monkeypatch):
    # A reader of a running run's state reads the snapshot, and before it reaches the journals
    # a compaction replaces the snapshot and removes the journal the old one named.
    path = tmp_path / "s.json"
    state = RunState(config=_config().to_dict(), seed=1)
    store = StateStore(str(path), compact_after=4)
    store.snapshot(state)
    _append(store, state, 2)
    store.flush()
    old_snapshot = path.read_bytes()  # no game in it; its journal holds games 1 and 2
    _append(store, state, 5)  # the compaction at 4 games, then game 5 in the next journal
    store.flush()
    new_snapshot = path.read_bytes()
    assert len(json.loads(new_snapshot)["games"]) == 4 and len(_journals(path)) == 1
    path.write_bytes(old_snapshot)  # the state as the reader found it
    read_journal = state_module._read_journal
    calls = []

    def compaction_meanwhile(journal, *args):
        if not calls:  # the compaction lands between the snapshot and the first journal
            replacement = tmp_path / "s.json.tmp"
            replacement.write_bytes(new_snapshot)
            os.replace(replacement, path)
        calls.append(journal)
        read_journal(journal, *args)

    monkeypatch.setattr(state_module, "_read_journal", compaction_meanwhile)
    loaded = load_state(str(path))
    assert loaded.games == state.games and loaded.pgn_offset == state.pgn_offset
    assert len(calls) == 4  # two journals read against the old snapshot, two against the new
    store.close(state)


def test_a_crash_in_the_middle_of_a_compaction_loses_no_game(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    state = RunState(config=_config().to_dict(), seed=1)
    # As if killed after journal N+1 was started, before the snapshot that names it replaced the old one.
    release = threading.Event()
    monkeypatch.setattr(StateStore, "_compact", lambda self, job: release.wait(30))
    store = StateStore(str(path), compact_after=5)
    store.snapshot(state)
    _append(store, state, 12)
    assert len(_journals(path)) == 2 and json.loads(path.read_text())["games"] == []
    assert load_state(str(path)).games == state.games
    release.set()
    store.close()
    monkeypatch.undo()
    # Killed after the new snapshot, before journal N was removed: N is not read again (no game twice).
    monkeypatch.setattr(state_module.os, "remove", lambda p: None)
    store = StateStore(str(path), compact_after=5)
    state = load_state(str(path))
    store.snapshot(state)
    _append(store, state, 15)
    store.flush()
    assert len(json.loads(path.read_text())["games"]) == 24 and len(_journals(path)) >= 3
    assert load_state(str(path)).games == state.games and len(state.games) == 27
    store.close()


def test_a_killed_runner_keeps_every_game_it_recorded(tmp_path):
    path = tmp_path / "s.json"
    code = f"""
import os, signal, sys
sys.path[:0] = [{str(REPO_ROOT)!r}, {str(REPO_ROOT / "tests")!r}]   # the tests import conftest as pytest does
from tests.test_tournament_state import _append, _config
from tournaments.state import RunState, StateStore
state = RunState(config=_config().to_dict(), seed=1)
store = StateStore({str(path)!r}, compact_after=8)
store.snapshot(state)
_append(store, state, 25)
os.kill(os.getpid(), signal.SIGKILL)  # no flush, no close: whatever the writer thread had not synced yet
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    loaded = load_state(str(path))
    assert [g.index for g in loaded.games] == list(range(25)) and loaded.pgn_offset == 2500


def test_a_version_1_state_file_still_resumes(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"version": 1, "config": {"x": 1}, "seed": 3, "pgn_offset": 12, "stopped": "",
                                "games": [vars(_game(0))]}))
    loaded = load_state(str(path))
    assert loaded.games == [_game(0)] and loaded.pgn_offset == 12 and loaded.epd_offset is None


# --- folders that cannot be opened or fsynced (Windows) -------------------------------------------

def _windows_like_open(monkeypatch):
    """os.open on a folder fails as on Windows (EACCES); files open as usual."""
    real_open = os.open
    opened = []

    def fake_open(path, flags, *args, **kwargs):
        if os.path.isdir(path):
            opened.append(path)
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(state_module.os, "open", fake_open)
    return opened


def test_durable_writes_where_a_folder_cannot_be_opened(tmp_path, monkeypatch):
    opened = _windows_like_open(monkeypatch)
    path = tmp_path / "s.json"
    state = RunState(config=_config().to_dict(), seed=1)
    save_state(str(path), state)
    store = StateStore(str(path), compact_after=3)
    store.snapshot(state)
    _append(store, state, 10)
    store.close(state)
    assert opened  # it tried, as it does where folders can be fsynced, and went on
    assert load_state(str(path)).games == state.games


def test_on_windows_the_folder_fsync_is_skipped(tmp_path, monkeypatch):
    opened = _windows_like_open(monkeypatch)
    monkeypatch.setattr(state_module.os, "name", "nt")
    path = tmp_path / "s.json"
    state = RunState(config=_config().to_dict(), seed=1)
    store = StateStore(str(path))
    store.snapshot(state)
    _append(store, state, 2)
    store.close(state)
    monkeypatch.undo()
    assert opened == [] and len(load_state(str(path)).games) == 2


def test_a_run_with_pgnout_plays_where_folders_cannot_be_fsynced(tmp_path, monkeypatch, capsys):
    from tournaments.__main__ import main
    _windows_like_open(monkeypatch)
    pgn = tmp_path / "w.pgn"
    code = main(["-engine", f"cmd={sys.executable} {FAKE} good", "name=a", "-engine",
                 f"cmd={sys.executable} {FAKE} good", "name=b", "-each", "tc=10+0.1", "-games", "2",
                 "-maxmoves", "10", "-pgnout", str(pgn)])
    assert code == 0, capsys.readouterr().err
    assert len(read_games(pgn)) == 2
    assert len(load_state(str(pgn) + ".state.json").games) == 2


def test_journal_path_is_beside_the_state_file():
    assert journal_path("/x/run.pgn.state.json", 3) == "/x/run.pgn.state.json.journal-3"


# --- the other work after each game stays flat too --------------------------------------------------

class _CountingList(list):
    """A list that counts the items read from it, to tell O(new games) from O(all games) per call."""

    read = 0

    def __iter__(self):
        for item in super().__iter__():
            _CountingList.read += 1
            yield item

    def __getitem__(self, index):
        item = super().__getitem__(index)
        _CountingList.read += len(item) if isinstance(index, slice) else 1
        return item


def test_the_tally_after_each_game_reads_only_the_new_games():
    from tournaments.report import headline_tally, sprt_of
    config = _config()
    config.sprt = SprtConfig(0.0, 5.0)
    games = _CountingList()
    _CountingList.read = 0
    for i in range(2000):
        games.append(_game(i))
        headline_tally(config, games)
        sprt_of(config, games)
    # Two calls a game, each reading the new game and one more (the check that the list only grew).
    assert _CountingList.read < 5 * 2000


def test_running_tally_matches_a_fresh_tally():
    import random

    from tournaments.stats import running_tally, tally_results
    rng = random.Random(5)
    games: list[FinishedGame] = []
    for i in range(400):
        white, black = rng.sample(["a", "b", "c"], 2)
        # Pairs of two games mostly, a lone game or a third one sometimes, and unfinished (*) games.
        games.append(FinishedGame(i, rng.randrange(150), 1, white, black, 0,
                                  rng.choice(["1-0", "0-1", "1/2-1/2", "*"]), "normal", "", 10))
        for engine in ("a", "b"):
            fresh = tally_results([(g.pair, g.white, g.black, g.result) for g in games], engine)
            assert running_tally(games, engine) == fresh
    other = list(games[:50])  # another list: tallied on its own
    assert running_tally(other, "a") == tally_results([(g.pair, g.white, g.black, g.result) for g in other], "a")


def test_the_pgn_is_synced_by_the_writer_thread_before_the_journal_line(tmp_path, monkeypatch):
    """A game's PGN append never waits on the disk (no fsync on the thread that times the engines);
    the writer thread syncs the PGN before the journal line that points past it."""
    from tournaments.pgnout import PgnWriter

    synced: list[int] = []
    monkeypatch.setattr(state_module, "_sync_data", synced.append)
    pgn = PgnWriter(str(tmp_path / "games.pgn"))
    path = tmp_path / "s.json"
    state = RunState(config=_config().to_dict(), seed=1)
    store = StateStore(str(path))
    store.snapshot(state)          # at the start, before any clock runs: it may wait on the disk
    monkeypatch.setattr(os, "fsync", lambda fd: pytest.fail("an fsync on the runner's thread"))
    state.pgn_offset = pgn.append('[Event "x"]\n\n1. e4 *')
    state.games.append(_game(0))
    pgn_fd = pgn.fileno()
    assert pgn_fd is not None
    store.append(state, state.games[-1], sync_first=[pgn_fd])
    store.flush()
    assert store.fd in synced and synced.index(pgn_fd) < synced.index(store.fd)
    monkeypatch.undo()
    store.close()
    pgn.close()
    assert (tmp_path / "games.pgn").read_text().startswith('[Event "x"]') and state.pgn_offset > 10


def test_a_pgn_shorter_than_its_state_is_refused_on_resume(tmp_path):
    from tournaments.pgnout import PgnWriter

    (tmp_path / "games.pgn").write_text("1. e4 *\n\n")
    with pytest.raises(OSError, match="fewer than the 500"):
        PgnWriter(str(tmp_path / "games.pgn"), truncate_to=500)
    writer = PgnWriter(str(tmp_path / "games.pgn"), truncate_to=4)
    assert writer.offset == 4 and (tmp_path / "games.pgn").read_text() == "1. e"
    writer.close()
