"""``-resume`` refuses what is not its run, and every unfinished run exits non-zero (issue 45, items 4, 5, 7).

Each case goes through ``python -m tournaments`` with the fake engines, whose games
take a fraction of a second. A run killed part-way is made from a finished one by
writing its state back as a killed runner leaves it (``as_killed``): a snapshot,
and one journal line per game after it, through the real ``StateStore``.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from tests.test_tournament import fake, read_games
from tournaments.state import RunState, StateStore, load_state


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m tournaments`` in ``cwd`` (the run's files are relative to it), this checkout first."""
    return subprocess.run([sys.executable, "-m", "tournaments", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})


def run_line(maxmoves: int = 8, tc: str = "5+0.05") -> list[str]:
    """The command line of the module's runs."""
    return ["-engine", fake("good", 999), "name=f1", "-engine", fake("good", 999), "name=f2", "-each", f"tc={tc}",
            "-maxmoves", str(maxmoves), "-games", "2", "-rounds", "2", "-pgnout", "g.pgn"]


def _play(folder: Path, maxmoves: int) -> None:
    folder.mkdir()
    proc = run_cli(run_line(maxmoves), folder)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """Two finished runs of four games, f1 against f2, played once for the module: -maxmoves 8 and 4."""
    root = tmp_path_factory.mktemp("finished")
    _play(root / "8", 8)
    _play(root / "4", 4)
    return root


@pytest.fixture
def play(finished, tmp_path):
    """A copy in ``folder`` of the finished run with ``maxmoves`` (8 or 4); returns its PGN."""
    def copy(folder: Path, maxmoves: int = 8) -> Path:
        shutil.copytree(finished / str(maxmoves), folder)
        return folder / "g.pgn"
    return copy


def game_ends(pgn: Path) -> list[int]:
    """The PGN's length after each of its games."""
    data = pgn.read_bytes()
    starts = [i + 1 for i in range(len(data)) if data.startswith(b"\n[Event ", i)]
    return [*starts, len(data)]


def as_killed(pgn: Path, recorded: int, in_snapshot: int = 0) -> Path:
    """Leave the finished run of ``pgn`` as a runner killed after its game ``recorded`` would.

    The snapshot holds the first ``in_snapshot`` games, the journal the rest up to ``recorded``;
    the PGN keeps the later games' bytes (written, never recorded: -resume cuts and plays them again).
    """
    path = Path(str(pgn) + ".state.json")
    full = load_state(str(path))
    ends = game_ends(pgn)
    state = RunState(config=full.config, seed=full.seed, games=full.games[:in_snapshot],
                     pgn_offset=ends[in_snapshot - 1] if in_snapshot else 0)
    store = StateStore(str(path))
    store.snapshot(state)
    for game, end in zip(full.games[in_snapshot:recorded], ends[in_snapshot:recorded], strict=True):
        state.games.append(game)
        state.pgn_offset = end
        store.append(state, game)
    store.close()
    return path


def journal(state: Path) -> Path:
    [found] = state.parent.glob(state.name + ".journal-*")
    return found


def refused(proc: subprocess.CompletedProcess, *words: str) -> str:
    """The one-line refusal of a resume (status 2), which must name ``words``."""
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("kestrel-tournament: error: ")]
    assert len(errors) == 1, proc.stderr
    for word in words:
        assert word in errors[0], errors[0]
    return errors[0]


# --- item 4: a journal of another run ------------------------------------------------------------------------

def test_a_journal_of_another_run_with_the_same_engines_is_refused_and_nothing_is_cut(tmp_path, play):
    ours = play(tmp_path / "a", maxmoves=8)
    other = play(tmp_path / "b", maxmoves=4)  # another -maxmoves: shorter games, offsets inside ours
    state = as_killed(ours, recorded=2)
    as_killed(other, recorded=2)
    shutil.copyfile(journal(Path(str(other) + ".state.json")), journal(state))
    before = ours.read_bytes()
    proc = run_cli(["-resume", "g.pgn.state.json"], tmp_path / "a")
    line = refused(proc, "belongs to run", "another run", "move it away")
    assert journal(state).name in line
    assert ours.read_bytes() == before  # no game cut, none glued
    # As the message says: moved away, the run resumes from its snapshot and plays its four games again.
    journal(state).rename(tmp_path / "foreign-journal")
    proc = run_cli(["-resume", "g.pgn.state.json"], tmp_path / "a")
    assert proc.returncode == 0, proc.stderr
    games = read_games(ours)
    assert [g.headers["Round"] for g in games] == ["1.1", "1.2", "2.3", "2.4"]


def test_its_own_journal_resumes_and_keeps_every_game_once(tmp_path, play):
    pgn = play(tmp_path / "a")
    kept = pgn.read_bytes()[:game_ends(pgn)[2]]
    as_killed(pgn, recorded=3, in_snapshot=1)
    proc = run_cli(["-resume", "g.pgn.state.json"], tmp_path / "a")
    assert proc.returncode == 0, proc.stderr
    assert "resuming after 3 finished games" in proc.stderr
    assert pgn.read_bytes().startswith(kept)
    assert [g.headers["Round"] for g in read_games(pgn)] == ["1.1", "1.2", "2.3", "2.4"]


def test_a_resume_line_that_sets_up_another_run_is_refused(tmp_path, play):
    pgn = play(tmp_path / "a")
    as_killed(pgn, recorded=2)
    before = pgn.read_bytes()
    for changed in (["-maxmoves", "30"], run_line(tc="3+0.05")):
        proc = run_cli(["-resume", "g.pgn.state.json", *changed], tmp_path / "a")
        refused(proc, "-resume continues the run its state file records", "-maxmoves", "drop them")
        assert pgn.read_bytes() == before
    # The line that started the run, repeated with -resume, is the same run.
    proc = run_cli([*run_line(), "-resume"], tmp_path / "a")
    assert proc.returncode == 0, proc.stderr
    assert [g.headers["Round"] for g in read_games(pgn)] == ["1.1", "1.2", "2.3", "2.4"]


def test_a_state_whose_settings_were_edited_is_refused(tmp_path, play):
    pgn = play(tmp_path / "a")
    state = as_killed(pgn, recorded=2, in_snapshot=2)
    data = json.loads(state.read_text())
    data["config"]["adjudication"]["maxmoves"] = 30
    state.write_text(json.dumps(data))
    refused(run_cli(["-resume", "g.pgn.state.json"], tmp_path / "a"), "settings were changed", "run")


def test_the_digest_names_what_changes_games_and_not_where_output_goes():
    from tournaments.statecheck import run_digest
    base = load_like = {"engines": [{"name": "f1", "tc": {"base": 5.0}}], "games": 2, "concurrency": 1,
                        "adjudication": {"maxmoves": 8}, "pgnout": "g.pgn", "recover": False}
    digest = run_digest(base, 7)
    assert run_digest(dict(load_like), 7) == digest and len(digest) == 16
    assert run_digest({**base, "concurrency": 8, "recover": True, "pgnout": "/elsewhere/g.pgn"}, 7) == digest
    assert run_digest(base, 8) != digest
    assert run_digest({**base, "adjudication": {"maxmoves": 9}}, 7) != digest
    assert run_digest({**base, "engines": [{"name": "f1", "tc": {"base": 6.0}}]}, 7) != digest


def as_legacy(state: Path) -> None:
    """Rewrite ``state`` and its journal as the runner wrote them before run digests (version 2)."""
    data = json.loads(state.read_text())
    del data["run"]
    data["version"] = 2
    state.write_text(json.dumps(data))
    entries = [json.loads(line) for line in journal(state).read_text().splitlines()]
    journal(state).write_text("".join(json.dumps({k: v for k, v in e.items() if k != "run"}) + "\n"
                                      for e in entries))


def test_an_old_state_with_a_foreign_journal_is_refused_by_the_pgn_check(tmp_path, play):
    """A state written before digests cannot name its run: the PGN tells its journal from another run's."""
    ours = play(tmp_path / "a", maxmoves=8)
    other = play(tmp_path / "b", maxmoves=4)
    state = as_killed(ours, recorded=2)
    other_state = as_killed(other, recorded=2)
    as_legacy(state)
    as_legacy(other_state)
    shutil.copyfile(journal(other_state), journal(state))
    before = ours.read_bytes()
    proc = run_cli(["-resume", "g.pgn.state.json"], tmp_path / "a")
    refused(proc, "g.pgn", "in the middle of a game")
    assert "written before state files named their run" in proc.stderr
    assert ours.read_bytes() == before


def test_an_old_state_with_its_own_journal_resumes(tmp_path, play):
    pgn = play(tmp_path / "a")
    state = as_killed(pgn, recorded=2)
    as_legacy(state)
    proc = run_cli(["-resume", "g.pgn.state.json"], tmp_path / "a")
    assert proc.returncode == 0, proc.stderr
    assert "written before state files named their run" in proc.stderr
    assert [g.headers["Round"] for g in read_games(pgn)] == ["1.1", "1.2", "2.3", "2.4"]
    assert json.loads(state.read_text())["version"] == 3  # the resumed run names itself from now on


def test_a_pgn_cut_in_the_middle_of_a_game_or_after_another_game_is_refused(tmp_path, play):
    pgn = play(tmp_path / "a")
    state = as_killed(pgn, recorded=2, in_snapshot=2)
    ends = game_ends(pgn)
    before = pgn.read_bytes()
    # Inside game 2, as a hand edit or another tool would leave it; then after game 1, a boundary but not
    # the end of the state's last game (game 2).
    for offset, words in ((ends[1] - 40, ["no game starting at byte"]),
                          (ends[0], ["is not the state's last game 2 (f2 - f1, 1/2-1/2)", "Round '1.1'"])):
        data = json.loads(state.read_text())
        data["pgn_offset"] = offset
        data.pop("run", None)
        data["version"] = 2
        state.write_text(json.dumps(data))
        refused(run_cli(["-resume", "g.pgn.state.json"], tmp_path / "a"), *words)
        assert pgn.read_bytes() == before


# --- item 5: malformed state files and journal lines --------------------------------------------------------

def _line(entry_edit):
    def edit(state: Path) -> None:
        path = journal(state)
        entries = [json.loads(line) for line in path.read_text().splitlines()]
        entry_edit(entries[0])
        path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return edit


def _snapshot(edit_data):
    def edit(state: Path) -> None:
        data = json.loads(state.read_text())
        state.write_text(json.dumps(edit_data(data)))
    return edit


@pytest.mark.parametrize("edit, words", [
    (_line(lambda e: e.update(n="1")), ["line 1's n is \"1\"", "not a whole number"]),
    (_line(lambda e: e.pop("pgn_offset")), ["line 1 has no 'pgn_offset'"]),
    (_line(lambda e: e["game"].update(result="banana")), ["result is \"banana\"", "1-0, 0-1, 1/2-1/2"]),
    (_line(lambda e: e["game"].update(index=-1)), ["index is -1"]),
    (_line(lambda e: e.update(game=[1, 2])), ["line 1's game is list"]),
    (_snapshot(lambda d: [d]), ["the state file is list, not a JSON object"]),
    (_snapshot(lambda d: {**d, "seed": "7"}), ["its seed is \"7\""]),
    (_snapshot(lambda d: {k: v for k, v in d.items() if k != "games"}), ["has no 'games'"]),
    (_snapshot(lambda d: {**d, "version": 9}), ["unknown state version 9"]),
], ids=["n-string", "no-pgn-offset", "banana", "negative-index", "game-list", "state-list", "seed-string",
        "no-games", "version-9"])
def test_a_malformed_state_is_one_line_and_status_2(tmp_path, play, edit, words):
    pgn = play(tmp_path / "a")
    state = as_killed(pgn, recorded=2, in_snapshot=1)
    edit(state)
    before = pgn.read_bytes()
    refused(run_cli(["-resume", "g.pgn.state.json"], tmp_path / "a"), "cannot resume", *words)
    assert pgn.read_bytes() == before


def test_a_damaged_config_in_the_state_is_refused(tmp_path, play):
    from tournaments.statecheck import run_digest
    pgn = play(tmp_path / "a")
    state = as_killed(pgn, recorded=2, in_snapshot=2)
    for damage, words in ((lambda c: c.update(games="2"), ["games is \"2\""]),
                          (lambda c: c.update(engines="f1"), ["config is damaged"]),
                          (lambda c: c["engines"][0]["tc"].update(base="fast"), ["engines[0].tc.base"])):
        data = json.loads(state.read_text())
        damage(data["config"])
        data["run"] = run_digest(data["config"], data["seed"])  # consistent, so only the field is at fault
        broken = tmp_path / "a" / "broken.json"
        broken.write_text(json.dumps(data))
        refused(run_cli(["-resume", "broken.json"], tmp_path / "a"), "cannot resume", *words)


# --- item 7: a run that stops before its end exits non-zero --------------------------------------------------

def test_a_crash_without_recover_exits_1_and_resume_finishes_with_0(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    proc = run_cli(["-engine", fake("good", 999), "name=f1", "-engine", fake("crash", 3), "name=f2",
                    "-each", "tc=5+0.05", "-maxmoves", "8", "-games", "2", "-rounds", "2", "-pgnout", "g.pgn"],
                   folder)
    assert proc.returncode == 1, proc.stderr
    assert "error: stopped: game 1 ended with an engine crash" in proc.stderr and "1 of 4 games played" in \
        proc.stderr and "-resume continues" in proc.stderr
    assert len(read_games(folder / "g.pgn")) == 1
    proc = run_cli(["-resume", "g.pgn.state.json", "-recover"], folder)
    assert proc.returncode == 0, proc.stderr
    assert len(read_games(folder / "g.pgn")) == 4


def test_a_bad_concurrency_on_resume_is_a_refusal(tmp_path, play):
    pgn = play(tmp_path / "a")
    as_killed(pgn, recorded=1)
    refused(run_cli(["-resume", "g.pgn.state.json", "-concurrency", "x"], tmp_path / "a"), "-concurrency")


def test_log_and_epd_files_are_cut_only_after_the_last_game(tmp_path):
    folder = tmp_path / "l"
    folder.mkdir()
    proc = run_cli([*run_line(), "-log", "g.log", "-epdout", "g.epd"], folder)
    assert proc.returncode == 0, proc.stderr
    state = folder / "g.pgn.state.json"
    good = state.read_text()
    for key, shift, words in (("log_offset", -10, ["log g.log has no game starting at byte"]),
                              ("log_offset", 0, ["log entry ending at byte", "last game ('# game 3 (round 2)"]),
                              ("epd_offset", -3, ["the EPD file g.epd is not the end of a line"])):
        data = json.loads(good)
        data[key] += shift
        if shift == 0:  # the last entry is another game's: the state forgets its last game
            data["games"] = data["games"][:-1]
            data["pgn_offset"] = game_ends(folder / "g.pgn")[2]
        state.write_text(json.dumps(data))
        before = [(folder / name).read_bytes() for name in ("g.pgn", "g.log", "g.epd")]
        refused(run_cli(["-resume", "g.pgn.state.json"], folder), *words)
        assert [(folder / name).read_bytes() for name in ("g.pgn", "g.log", "g.epd")] == before
