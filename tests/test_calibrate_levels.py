"""The level calibration's arithmetic (tools/calibrate_levels.py): tallies, the monotone fit, the
proposed curve.  The games themselves are too long for CI; docs/play.md has them."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
from pathlib import Path

import pytest
from conftest import STOCKFISH

from tools import calibrate_levels as cal
from tools import levels_record
from tournaments.stats import Tally
from uci_engine import strength
from uci_engine.strength import CURVE, FULL_STRENGTH_ELO, level_for_elo


def measured(elo: int, wins: int, losses: int, draws: int = 0) -> cal.Measurement:
    return cal.Measurement(elo, Tally(wins, losses, draws))


def write_measured_record(path: Path) -> levels_record.Record:
    """The record as signed, but with every anchor measured and every level's games an even score
    over 60 (its ledger rows kept): a record whose games measure the curve it is signed for."""
    record = levels_record.read_record(levels_record.RECORD)
    for anchor in record["anchors"]:
        anchor["measured"] = True
    for level in record["levels"]:
        level.update(games=60, wins=30, losses=30, draws=0, pentanomial=[0, 0, 30, 0, 0], plays_at=level["elo"])
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def test_a_tally_counts_kestrels_games_from_either_side(tmp_path: Path) -> None:
    pgn = tmp_path / "level.pgn"
    games = [("Kestrel", "Stockfish", "1-0"), ("Stockfish", "Kestrel", "1-0"), ("Stockfish", "Kestrel", "0-1"),
             ("Kestrel", "Stockfish", "1/2-1/2"), ("Kestrel", "Stockfish", "*")]
    pgn.write_text("".join(f'[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n{r}\n\n' for w, b, r in games))
    tally = cal.tally_of(pgn)
    assert (tally.wins, tally.losses, tally.draws) == (2, 1, 1)


def test_performance_is_the_number_plus_the_score_s_elo() -> None:
    assert measured(1700, 10, 10).performance == pytest.approx(1700)
    assert measured(1700, 64, 36).performance == pytest.approx(1700 + 100, abs=2)
    assert "| 1700 | 100 | 64-36-0 | 64.0% |" in measured(1700, 64, 36).row()


def test_the_fit_pools_a_level_that_fell_below_a_weaker_one() -> None:
    assert cal.monotone([(1350, 1400), (1700, 1600), (1900, 1550), (2100, 2050)]) == [
        (1350, 1400), (1800, 1575), (2100, 2050)]


def test_the_number_for_a_performance_reads_the_measured_curve() -> None:
    curve = [(1350.0, 1250.0), (1700.0, 1600.0), (2100.0, 1900.0)]
    assert cal.number_for(1600, curve) == pytest.approx(1700)
    assert cal.number_for(1750, curve) == pytest.approx(1900)
    assert cal.number_for(1200, curve) == pytest.approx(1300)     # beyond the ends: one for one
    assert cal.number_for(2000, curve) == pytest.approx(2200)


def test_levels_that_play_too_weak_get_the_settings_of_higher_numbers() -> None:
    weak = [measured(elo, 30, 70) for elo in (1350, 1700, 2100)]     # each about 147 Elo below its number
    proposed = cal.fitted_curve(weak)
    assert proposed[-1] == CURVE[-1] and [a.elo for a in proposed] == [a.elo for a in CURVE]
    for old, new in zip(CURVE[:-1], proposed[:-1], strict=True):
        assert new.nodes > old.nodes and new.temperature < old.temperature
    strong = cal.fitted_curve([measured(elo, 70, 30) for elo in (1350, 1700, 2100)])
    assert strong[0].nodes < CURVE[0].nodes            # below the bottom: the first segment carried on
    assert strong[0].temperature > CURVE[0].temperature and strong[0].nodes >= cal.MIN_NODES
    exact = cal.fitted_curve([measured(elo, 50, 50) for elo in (1350, 1700, 2100)])
    for old, new in zip(CURVE[1:-1], exact[1:-1], strict=True):
        level = level_for_elo(old.elo)
        assert level is not None and abs(new.nodes - level.nodes) <= 1


def test_the_runner_command_resumes_with_the_games_it_lacks(tmp_path: Path) -> None:
    args = cal.parse_arguments(["1700", "--games", "60", "--stockfish", __file__])
    command = cal.runner_command(tmp_path, 1700, args, tmp_path / "x.pgn", played=20)
    assert command[command.index("-rounds") + 1] == "20"
    assert command[command.index("-srand") + 1] == str(args.srand + 1700 + 20)
    assert "option.UCI_Elo=1700" in command and any(part.endswith("UCI_Elo=1700") for part in command)
    assert FULL_STRENGTH_ELO in cal.parse_arguments(["--stockfish", __file__]).levels   # the top is measured too
    with pytest.raises(SystemExit):
        cal.parse_arguments(["--games", "61", "--stockfish", __file__])


def test_an_earlier_curve_is_read_from_its_source() -> None:
    source = Path(strength.__file__).read_text(encoding="utf-8")
    assert cal.curve_in(source) == CURVE
    older = re.sub(r"nodes=[0-9_]+,", "nodes=777,", source, count=1)         # the first anchor's budget
    assert cal.curve_in(older)[0].nodes == 777 and cal.curve_in(older)[1:] == CURVE[1:]
    with pytest.raises(ValueError):
        cal.curve_in("CURVES = ()\n")


def test_a_level_of_an_earlier_curve_is_placed_on_today_s_by_its_node_budget() -> None:
    for elo in (1400, 1700, 1900, 2200):
        assert cal.number_with_nodes(level_for_elo(elo)) == pytest.approx(elo, abs=1)   # today's own levels
    assert cal.number_with_nodes(None) == FULL_STRENGTH_ELO                          # full strength is the top
    fewer = dataclasses.replace(CURVE[0], nodes=CURVE[0].nodes // 2)
    assert cal.number_with_nodes(fewer) < CURVE[0].elo                               # below the curve: carried on
    doubled = [dataclasses.replace(level, nodes=level.nodes * 2) for level in CURVE[:-1]]
    assert all(cal.number_with_nodes(a) > b.elo for a, b in zip(doubled, CURVE, strict=False))


def test_the_pooled_fit_weighs_each_level_by_its_games(tmp_path: Path) -> None:
    assert cal.monotone([(1700, 1600, 3), (1900, 1500, 1)]) == [(1750, 1575)]
    light = [measured(elo, 50, 50) for elo in (1350, 1700, 2100)]
    heavy_strong = [measured(elo, 700, 300) for elo in (1350, 1700, 2100)]
    assert cal.fitted_curve(light + heavy_strong)[1].nodes < cal.fitted_curve(light)[1].nodes
    for name, elo in (("old", 1700), ("old", 2100), ("older", 1700)):
        pgn = tmp_path / f"{name}-{elo}.pgn"
        pgn.write_text('[White "Kestrel"]\n[Black "Stockfish"]\n[Result "1-0"]\n\n1-0\n\n', encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cal, "curve_of", lambda commit: CURVE)
        pooled = cal.pooled_round("old:abc1234", tmp_path)
    assert [(m.elo, m.tally.games) for m in pooled] == [(1700, 1), (2100, 1)]
    assert [m.position for m in pooled] == pytest.approx([1700, 2100], abs=1)
    with pytest.raises(ValueError):
        cal.pooled_round("old", tmp_path)


def test_a_round_s_dry_run_names_every_level_and_writes_nothing(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    assert cal.main(["round", "r1", "--dry-run", "--record", str(record), "--stockfish", STOCKFISH]) == 0
    commands = [line for line in capsys.readouterr().out.splitlines() if " -m tournaments " in line]
    assert [next(w for w in c.split() if w.startswith("option.UCI_Elo=")) for c in commands] == [
        f"option.UCI_Elo={elo}" for elo in (*cal.ROUND_LEVELS, FULL_STRENGTH_ELO)]
    assert all("tc=10+0.1" in c and "2moves_v1.epd" in c and "-games 2" in c for c in commands)
    assert not record.exists()


@pytest.mark.slow
def test_a_round_plays_writes_the_ledger_refits_and_signs(tmp_path: Path) -> None:
    """The whole round on a tiny scale: two short games of UCI_Elo 1350 against Stockfish, the
    ledger row with its pentanomial counts, the record re-signed with a note, and no anchor marked
    measured (out of the band the curve is refitted; in it, two games are too few)."""
    ledger, strength_file, record = tmp_path / "ledger.csv", tmp_path / "strength.py", tmp_path / "record.json"
    ledger.write_text("")
    strength_file.write_text(Path(strength.__file__).read_text(encoding="utf-8"), encoding="utf-8")
    record.write_text(levels_record.RECORD.read_text(encoding="utf-8"), encoding="utf-8")
    notes = len(levels_record.read_record(record)["notes"])
    runs = tmp_path / "runs"                                  # not there yet, as in a clean clone
    assert cal.main(["round", "smoke", "--levels", "1350", "--games", "2", "--tc", "1+0.05", "--runs", str(runs),
                     "--ledger-file", str(ledger), "--strength-file", str(strength_file), "--record", str(record),
                     "--stockfish", STOCKFISH, "--no-build"]) == 0     # as built: a rebuild costs CI a minute
    assert (runs / "smoke-1350.pgn").is_file()
    rows = list(csv.reader(ledger.read_text().splitlines()))
    assert len(rows) == 1 and rows[0][0] == "pl-smoke-1350" and rows[0][6] == "2" and "pentanomial [" in rows[0][16]
    written = levels_record.read_record(record)
    assert len(written["notes"]) == notes + 1 and "round smoke" in written["notes"][-1]["note"]
    assert written["levels"][0]["elo"] == 1350 and written["levels"][0]["games"] == 2
    assert not any(anchor["measured"] for anchor in written["anchors"])
    refitted = "out of +-75" in written["notes"][-1]["note"]
    assert refitted == (cal.curve_in(strength_file.read_text(encoding="utf-8")) != CURVE)
    assert refitted or "fewer than 60 games" in written["notes"][-1]["note"]


def test_the_curve_is_written_back_as_it_reads() -> None:
    source = Path(strength.__file__).read_text(encoding="utf-8")
    moved = [dataclasses.replace(anchor, nodes=anchor.nodes + 1) for anchor in CURVE]
    assert cal.curve_in(cal.curve_source(moved)) == tuple(moved)
    assert cal.curve_in(source.replace(cal.curve_source(CURVE), cal.curve_source(moved))) == tuple(moved)
    assert cal.curve_source(CURVE) in source                # strength.py's CURVE is written as the tool writes it


def test_resign_wants_a_note(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    record.write_text(levels_record.RECORD.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(SystemExit):
        cal.parse_resign_arguments(["--record", str(record)])
    with pytest.raises(ValueError):
        levels_record.signed(levels_record.read_record(record), "  ", levels_record.LevelsSignature({}, {}))


def test_a_round_within_its_bands_marks_the_anchors_measured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every level within +-75: the ledger gets its rows, the curve stays, the anchors are marked
    measured with this net, and the record is re-signed with a note that says so; one level out
    of its band and the curve is refitted instead (the games are stand-ins here)."""
    ledger, strength_file, record = tmp_path / "ledger.csv", tmp_path / "strength.py", tmp_path / "record.json"
    source = Path(strength.__file__).read_text(encoding="utf-8")
    signed: list[str] = []
    monkeypatch.setattr(cal, "checkout", lambda revision, build=True: cal.REPO)
    monkeypatch.setattr(cal, "resign_afresh", lambda note, path: signed.append(note))
    for scores, refitted in (({}, False), ({1900: (40, 20)}, True)):
        ledger.write_text("")
        strength_file.write_text(source, encoding="utf-8")
        record.write_text(levels_record.RECORD.read_text(encoding="utf-8"), encoding="utf-8")
        games = [measured(elo, *scores.get(elo, (30, 30))) for elo in (*cal.ROUND_LEVELS, FULL_STRENGTH_ELO)]
        monkeypatch.setattr(cal, "play_levels", lambda folder, args, games=games: games)
        assert cal.main(["round", "r9", "--ledger-file", str(ledger), "--strength-file", str(strength_file),
                         "--record", str(record), "--stockfish", STOCKFISH]) == 0
        rows = list(csv.reader(ledger.read_text().splitlines()))
        assert [row[0] for row in rows] == [f"pl-r9-{elo}" for elo in (*cal.ROUND_LEVELS, FULL_STRENGTH_ELO)]
        written = levels_record.read_record(record)
        assert [anchor["measured"] for anchor in written["anchors"]] == [not refitted] * len(written["anchors"])
        assert (written["measured_with"]["round"] == "r9") == (not refitted)
        assert ("refitted from round r9" in written["measured_with"]["round"]) == refitted
        assert (cal.curve_in(strength_file.read_text(encoding="utf-8")) != CURVE) == refitted
        assert ("out of +-75" in signed[-1]) == refitted and "r9" in signed[-1]
    assert "1900 played" in signed[-1]


def write_ledger(path: Path, rows: list[list[str]]) -> None:
    header = ("id,date,technique,commit,baseline,time_control,games,wins,losses,draws,elo,elo_low,elo_high,llr,"
              "verdict,command,notes")
    with path.open("w", encoding="utf-8", newline="") as file:
        file.write(header + "\n")
        csv.writer(file, lineterminator="\n").writerows(rows)


def ledger_level(name: str, elo: int, commit: str, wins: int, losses: int, draws: int) -> list[str]:
    return [f"pl-{name}-{elo}", "2026-12-06", "calibration", commit, "Stockfish", "10+0.1",
            str(wins + losses + draws), str(wins), str(losses), str(draws), "0", "0", "0", "", "measurement",
            "python -m tools.calibrate_levels round", f"plays at about {elo}; pentanomial [1, 2, 3, 4, 5]; games"]


def test_a_round_whose_games_are_gone_is_pooled_from_its_ledger_rows(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """No runs/NAME-ELO.pgn: the rows pl-NAME-ELO give each level's tally and the commit whose curve
    played it; a commit named in the spec must be theirs."""
    ledger = tmp_path / "ledger.csv"
    write_ledger(ledger, [ledger_level("old", 1700, "abc1234", 40, 15, 5),
                          ledger_level("old", 2100, "abc1234", 20, 30, 10),
                          ledger_level("older", 1700, "def5678", 1, 1, 1), ["pl-old-x", *["0"] * 16]])
    asked: list[str] = []
    monkeypatch.setattr(cal, "curve_of", lambda commit: asked.append(commit) or CURVE)
    pooled = cal.pooled_round("old", tmp_path, ledger)
    assert [(m.elo, m.tally.wins, m.tally.losses, m.tally.draws) for m in pooled] == [(1700, 40, 15, 5),
                                                                                       (2100, 20, 30, 10)]
    assert pooled[0].tally.pentanomial == [1, 2, 3, 4, 5] and set(asked) == {"abc1234"}
    assert [m.position for m in pooled] == pytest.approx([1700, 2100], abs=1)
    assert len(cal.pooled_round("old:abc1234", tmp_path, ledger)) == 2
    for spec in ("old:fff0000", "missing"):
        with pytest.raises(ValueError):
            cal.pooled_round(spec, tmp_path, ledger)


def test_a_round_refits_with_the_rounds_it_pools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`round --pool NAME`: a level that missed is refitted from this round's games and the pooled
    round's together, and the record and the ledger's command say so."""
    ledger, strength_file, record = tmp_path / "ledger.csv", tmp_path / "strength.py", tmp_path / "record.json"
    source = Path(strength.__file__).read_text(encoding="utf-8")
    monkeypatch.setattr(cal, "checkout", lambda revision, build=True: cal.REPO)
    monkeypatch.setattr(cal, "resign_afresh", lambda note, path: None)
    monkeypatch.setattr(cal, "curve_of", lambda commit: CURVE)
    games = [measured(elo, *((40, 20) if elo == 1900 else (30, 30))) for elo in (*cal.ROUND_LEVELS, FULL_STRENGTH_ELO)]
    monkeypatch.setattr(cal, "play_levels", lambda folder, args: games)
    curves = []
    for pool in ([], ["--pool", "old"]):
        # The pooled round played 1900 weaker, over many games: it pulls the refit back.
        write_ledger(ledger, [ledger_level("old", 1900, "abc1234", 100, 300, 0)])
        strength_file.write_text(source, encoding="utf-8")
        record.write_text(levels_record.RECORD.read_text(encoding="utf-8"), encoding="utf-8")
        assert cal.main(["round", "r9", "--ledger-file", str(ledger), "--strength-file", str(strength_file),
                         "--record", str(record), "--stockfish", STOCKFISH, *pool]) == 0
        curves.append({a.elo: a.nodes for a in cal.curve_in(strength_file.read_text(encoding="utf-8"))})
        rows = list(csv.DictReader(ledger.read_text().splitlines()))
        assert all(("--pool old" in row["command"]) == bool(pool) for row in rows if row["id"].startswith("pl-r9-"))
        written = levels_record.read_record(record)
        assert ("rounds r9 and old" in written["measured_with"]["round"]) == bool(pool)
    assert curves[1][1900] > curves[0][1900]


def test_a_round_takes_its_verdict_over_earlier_rounds_of_the_same_levels(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A pooled round whose commit signed the same record (net, settings, levels signature) measured
    these very levels: a level that missed alone (1900 at 40-20) and played 25-35 there is within its
    band over both, so the anchors are marked measured by both rounds, the curve stays and the record
    holds the games of both; the ledger gets this round's games only.  The same games from a commit
    signed otherwise count in the refit only."""
    ledger, strength_file, record = tmp_path / "ledger.csv", tmp_path / "strength.py", tmp_path / "record.json"
    source = Path(strength.__file__).read_text(encoding="utf-8")
    signed_now = levels_record.read_record(levels_record.RECORD)["signed"]
    monkeypatch.setattr(cal, "checkout", lambda revision, build=True: cal.REPO)
    monkeypatch.setattr(cal, "resign_afresh", lambda note, path: None)
    monkeypatch.setattr(cal, "curve_of", lambda commit: CURVE)
    monkeypatch.setattr(cal, "signed_at", lambda commit: signed_now if commit == "aaa0001" else {"other": 1})
    levels = (*cal.ROUND_LEVELS, FULL_STRENGTH_ELO)
    games = [measured(elo, *((40, 20) if elo == 1900 else (30, 30))) for elo in levels]
    monkeypatch.setattr(cal, "play_levels", lambda folder, args: games)
    for commit, same in (("aaa0001", True), ("bbb0002", False)):
        write_ledger(ledger, [ledger_level("old", 1900, commit, 25, 35, 0)])
        strength_file.write_text(source, encoding="utf-8")
        record.write_text(levels_record.RECORD.read_text(encoding="utf-8"), encoding="utf-8")
        assert cal.main(["round", "r9", "--ledger-file", str(ledger), "--strength-file", str(strength_file),
                         "--record", str(record), "--stockfish", STOCKFISH, "--pool", "old"]) == 0
        assert cal.pooled_round("old", tmp_path, ledger, signed_now)[0].repeats == same
        written = levels_record.read_record(record)
        at_1900 = next(level for level in written["levels"] if level["elo"] == 1900)
        assert (at_1900["games"], at_1900["wins"]) == ((120, 65) if same else (60, 40))
        assert (at_1900["ledger"] == "pl-r9-1900 + pl-old-1900") == same
        assert at_1900["pentanomial"] is None          # the ledger row's 15 pairs are not its 60 games
        assert all(anchor["measured"] == same for anchor in written["anchors"])
        assert (written["measured_with"]["round"] == "r9 + old") == same
        assert (cal.curve_in(strength_file.read_text(encoding="utf-8")) == CURVE) == same
        rows = list(csv.DictReader(ledger.read_text().splitlines()))
        assert [row["games"] for row in rows if row["id"] == "pl-r9-1900"] == ["60"]


def test_the_levels_of_an_earlier_commit_repeat_today_s_only_when_it_signed_the_same_record() -> None:
    """signed_at reads a commit's record from git (what it was signed for: net, settings, levels
    signature), and a commit with no record has none."""
    signed = cal.signed_at("HEAD")
    assert signed is not None and {"net", "net_sha256", "settings", "signature"} <= set(signed)
    root = cal.git("rev-list", "--max-parents=0", "HEAD").split()[0]
    assert cal.signed_at(root) is None


def test_a_round_where_only_full_strength_missed_moves_the_top_alone(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Every level below the top within +-75 and full strength far above it: the top anchor moves to
    where full strength played, every anchor below it keeps its settings, and all are marked measured."""
    ledger, strength_file, record = tmp_path / "ledger.csv", tmp_path / "strength.py", tmp_path / "record.json"
    strength_file.write_text(Path(strength.__file__).read_text(encoding="utf-8"), encoding="utf-8")
    record.write_text(levels_record.RECORD.read_text(encoding="utf-8"), encoding="utf-8")
    signed: list[str] = []
    monkeypatch.setattr(cal, "checkout", lambda revision, build=True: cal.REPO)
    monkeypatch.setattr(cal, "resign_afresh", lambda note, path: signed.append(note))
    games = [measured(elo, *((40, 20) if elo == FULL_STRENGTH_ELO else (30, 30)))
             for elo in (*cal.ROUND_LEVELS, FULL_STRENGTH_ELO)]
    monkeypatch.setattr(cal, "play_levels", lambda folder, args: games)
    assert cal.main(["round", "r9", "--ledger-file", str(ledger), "--strength-file", str(strength_file),
                     "--record", str(record), "--stockfish", STOCKFISH]) == 0
    top = int(round(games[-1].performance, -1))
    assert abs(games[-1].performance - FULL_STRENGTH_ELO) > 75 and top > FULL_STRENGTH_ELO
    assert cal.curve_in(strength_file.read_text(encoding="utf-8")) == (*CURVE[:-1],
                                                                      dataclasses.replace(CURVE[-1], elo=top))
    written = levels_record.read_record(record)
    assert [anchor["elo"] for anchor in written["anchors"]] == [*(a.elo for a in CURVE[:-1]), top]
    assert all(anchor["measured"] for anchor in written["anchors"]) and written["measured_with"]["round"] == "r9"
    assert f"the top moved from {FULL_STRENGTH_ELO} to {top}" in signed[-1]


def test_a_round_of_some_levels_keeps_the_recorded_games_of_the_levels_that_did_not_move(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`round --levels 2300 TOP`: the issue's levels below, which play as the record says (the
    signature's moves and nodes), keep their recorded games in the verdict and the record, so the
    anchors are marked measured; one whose signature moved (1900 here) is not carried, and the ledger
    gets the games played only."""
    ledger, strength_file, record = tmp_path / "ledger.csv", tmp_path / "strength.py", tmp_path / "record.json"
    source = Path(strength.__file__).read_text(encoding="utf-8")
    recorded = write_measured_record(tmp_path / "measured.json")
    then = levels_record.LevelsSignature.from_json(recorded["signed"]["signature"])
    monkeypatch.setattr(cal, "checkout", lambda revision, build=True: cal.REPO)
    monkeypatch.setattr(cal, "resign_afresh", lambda note, path: None)
    played = (2300, FULL_STRENGTH_ELO)
    monkeypatch.setattr(cal, "play_levels", lambda folder, args: [measured(elo, 30, 30) for elo in played])
    lower = [elo for elo in cal.ROUND_LEVELS if elo < 2300]
    for moved in (None, 1900):
        nodes = {elo: then.nodes[elo] + (elo == moved) for elo in lower}
        monkeypatch.setattr(cal, "signature_afresh", lambda folder, levels, nodes=nodes: levels_record.LevelsSignature(
            {elo: then.moves[elo] for elo in levels}, {elo: nodes[elo] for elo in levels}))
        ledger.write_text("")
        strength_file.write_text(source, encoding="utf-8")
        record.write_text((tmp_path / "measured.json").read_text(encoding="utf-8"), encoding="utf-8")
        assert cal.main(["round", "r9", "--levels", *map(str, played), "--ledger-file", str(ledger),
                         "--strength-file", str(strength_file), "--record", str(record), "--stockfish", STOCKFISH]) == 0
        rows = list(csv.reader(ledger.read_text().splitlines()))
        assert [row[0] for row in rows] == [f"pl-r9-{elo}" for elo in played]
        assert all(row[15].endswith(f" --levels 2300 {FULL_STRENGTH_ELO}") for row in rows)   # replays this round
        written = levels_record.read_record(record)
        kept = [elo for elo in lower if elo != moved]
        assert [level["elo"] for level in written["levels"]] == [*kept, *played]
        for level in written["levels"]:
            before = next((old for old in recorded["levels"] if old["elo"] == level["elo"]), None)
            assert level == before if level["elo"] in kept else level["ledger"] == f"pl-r9-{level['elo']}"
        assert all(anchor["measured"] == (moved is None) for anchor in written["anchors"])
        if moved is None:
            assert "the recorded games of " + ", ".join(map(str, kept)) in written["measured_with"]["round"]
        else:
            assert all(f"did not play {moved}, which moved" in anchor["with"] for anchor in written["anchors"])


def test_a_refit_counts_a_carried_level_s_games_once_when_its_round_is_pooled_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`round --levels 2300 TOP --pool NAME`, where NAME is a round whose games a carried level's
    record already holds: the refit is the one without the pool; a pooled round the record does
    not hold moves it."""
    ledger, strength_file, record = tmp_path / "ledger.csv", tmp_path / "strength.py", tmp_path / "record.json"
    source = Path(strength.__file__).read_text(encoding="utf-8")
    recorded = write_measured_record(tmp_path / "measured.json")
    then = levels_record.LevelsSignature.from_json(recorded["signed"]["signature"])
    held = next(level for level in recorded["levels"] if level["elo"] == 1700)["ledger"].split(" + ")[0]
    held_round = held.removeprefix("pl-").removesuffix("-1700")
    monkeypatch.setattr(cal, "checkout", lambda revision, build=True: cal.REPO)
    monkeypatch.setattr(cal, "resign_afresh", lambda note, path: None)
    monkeypatch.setattr(cal, "curve_of", lambda commit: CURVE)
    monkeypatch.setattr(cal, "signature_afresh", lambda folder, levels: levels_record.LevelsSignature(
        {elo: then.moves[elo] for elo in levels}, {elo: then.nodes[elo] for elo in levels}))
    played = (2300, FULL_STRENGTH_ELO)
    # 2300 misses, so the curve is refitted; the pooled 1700 (much weaker, many games) would pull it.
    games = [measured(2300, 40, 20), measured(FULL_STRENGTH_ELO, 30, 30)]
    monkeypatch.setattr(cal, "play_levels", lambda folder, args: games)
    curves = {}
    for pool in (None, held_round, "other"):
        write_ledger(ledger, [ledger_level(held_round, 1700, "abc1234", 100, 300, 0),
                              ledger_level("other", 1700, "abc1234", 100, 300, 0)])
        strength_file.write_text(source, encoding="utf-8")
        record.write_text((tmp_path / "measured.json").read_text(encoding="utf-8"), encoding="utf-8")
        assert cal.main(["round", "r9", "--levels", *map(str, played), "--ledger-file", str(ledger),
                         "--strength-file", str(strength_file), "--record", str(record), "--stockfish", STOCKFISH,
                         *(["--pool", pool] if pool else [])]) == 0
        assert [level["elo"] for level in levels_record.read_record(record)["levels"]][:5] == list(cal.ROUND_LEVELS[:5])
        curves[pool] = cal.curve_in(strength_file.read_text(encoding="utf-8"))
    assert curves[held_round] == curves[None] != CURVE
    assert curves["other"] != curves[None]


def test_a_record_refitted_since_its_games_carries_no_level(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a refit the record is signed for the new curve but holds the games of the old one, so a
    round of some levels carries none of them; with every anchor measured it carries those that play alike."""
    record = write_measured_record(tmp_path / "measured.json")
    then = levels_record.LevelsSignature.from_json(record["signed"]["signature"])
    monkeypatch.setattr(cal, "signature_afresh", lambda folder, levels: levels_record.LevelsSignature(
        {elo: then.moves[elo] for elo in levels}, {elo: then.nodes[elo] for elo in levels}))
    played = (2300, FULL_STRENGTH_ELO)
    assert [m.elo for m in cal.carried_levels(record, played, cal.REPO)] == [1350, 1500, 1700, 1900, 2100]
    record["anchors"][1]["measured"] = False
    assert cal.carried_levels(record, played, cal.REPO) == []
