"""The experiments ledger (docs/experiments.csv) is well formed, and `python -m tools.ledger` prints it."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import pytest

from tools import ledger

ROWS = ledger.read_ledger()


def number(text: str) -> float:
    return float(text)


def test_the_csv_has_the_exact_header() -> None:
    with ledger.LEDGER.open(newline="") as handle:
        assert tuple(next(csv.reader(handle))) == ledger.HEADER
    assert len(ROWS) > 100


def test_ids_are_unique() -> None:
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["id"])
def test_row_is_well_formed(row: dict[str, str]) -> None:
    assert row["verdict"] in ledger.VERDICTS
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["date"])
    assert re.fullmatch(r"[0-9a-f]{7}", row["commit"])
    assert row["technique"]
    counts = [row["wins"], row["losses"], row["draws"]]
    if any(counts):
        assert all(counts), "W, L and D are given together"
        assert sum(int(c) for c in counts) == int(row["games"])
    if row["elo"]:
        elo = number(row["elo"])
        if row["elo_low"]:
            assert number(row["elo_low"]) <= elo
        if row["elo_high"]:
            assert elo <= number(row["elo_high"])
    else:
        assert not row["elo_low"] and not row["elo_high"]
    assert row["llr"] in ("", "H0", "H1") or math.isfinite(number(row["llr"]))


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["id"])
def test_command_runs_from_the_repository(row: dict[str, str]) -> None:
    assert row["command"].startswith("python -m ")
    assert "/work" not in row["command"]
    assert "/work" not in row["notes"]


def test_the_printer_shows_a_row_and_filters(capsys: pytest.CaptureFixture[str]) -> None:
    assert ledger.main(["--technique", "RAZORING"]) == 0
    out = capsys.readouterr().out
    assert "ab-razoring-1" in out and "481-438-481" in out and "ab-razoring-nnue4" in out
    assert "ab-probcut" not in out
    # Three runs and their pool with the weighted evaluation, one with the net.
    assert out.rstrip().endswith("5 rows")

    assert ledger.main(["--id", "mc-", "--verdict", "rejected"]) == 0
    out = capsys.readouterr().out
    assert "mc-widening " in out and "ab-" not in out and "mc-drr " not in out

    assert ledger.main(["--verdict", "adopted", "--full"]) == 0
    out = capsys.readouterr().out
    assert "ab-node-time " in out and "command:  python -m " in out
    assert "ab-razoring" not in out


def test_the_csv_option_passes_rows_through(capsys: pytest.CaptureFixture[str]) -> None:
    assert ledger.main(["--csv", "--technique", "progressive widening"]) == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert rows and all("widening" in row["technique"] for row in rows)
    assert rows == [row for row in ROWS if "progressive widening" in row["technique"].lower()]


def test_the_command_option_prints_one_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert ledger.main(["--command", "ab-probcut"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("python -m tools.versus 9bddfe4 9bddfe4 --candidate-env KESTREL_SEARCH_ON=probcut")
    assert out.count("\n") == 1
    assert ledger.main(["--command", "no-such-row"]) == 1


def test_a_file_with_another_header_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("id,date\nx,2026-01-01\n")
    with pytest.raises(ValueError, match="header"):
        ledger.read_ledger(path)
