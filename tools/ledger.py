"""The experiments ledger (docs/experiments.csv): one row per test ever played, printed as a table.

    python -m tools.ledger                          every row, as an aligned table
    python -m tools.ledger --technique widening     rows whose technique contains the text (any case)
    python -m tools.ledger --id mc-                 rows whose id contains the text (mc-: the MCTS rows)
    python -m tools.ledger --verdict adopted        rows with that verdict
    python -m tools.ledger --full                   each row's command and notes under it
    python -m tools.ledger --csv                    the selected rows as CSV, header included
    python -m tools.ledger --command ID             one row's command alone (`... | sh` plays it again)

docs/experiments.md says what each column means and how to add a row.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

LEDGER = Path(__file__).resolve().parent.parent / "docs" / "experiments.csv"

HEADER = ("id", "date", "technique", "commit", "baseline", "time_control", "games", "wins", "losses", "draws",
          "elo", "elo_low", "elo_high", "llr", "verdict", "command", "notes")
VERDICTS = ("adopted", "rejected", "neutral", "measurement")
# The table keeps to what fits a terminal; --full adds the command and the notes.
TECHNIQUE_WIDTH = 56

Row = dict[str, str]


def read_ledger(path: Path = LEDGER) -> list[Row]:
    """The ledger's rows, each a dict keyed by HEADER; a file with another header is refused."""
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != HEADER:
            raise ValueError(f"{path}: the header is {reader.fieldnames}, expected {list(HEADER)}")
        return list(reader)


def select(rows: Iterable[Row], technique: str | None = None, verdict: str | None = None,
           row_id: str | None = None) -> list[Row]:
    """The rows whose technique contains `technique` (ignoring case), whose verdict is `verdict` and
    whose id contains `row_id`; a criterion left None takes every row."""
    needle = technique.lower() if technique else None
    return [row for row in rows
            if (needle is None or needle in row["technique"].lower())
            and (verdict is None or row["verdict"] == verdict)
            and (row_id is None or row_id in row["id"])]


def score(row: Row) -> str:
    """W-L-D when the counts are known, else the number of games (or nothing)."""
    if row["wins"] or row["losses"] or row["draws"]:
        return f"{row['wins']}-{row['losses']}-{row['draws']}"
    return f"{row['games']} games" if row["games"] else ""


def elo_text(row: Row) -> str:
    """Elo with its 95% interval, as far as the row gives them."""
    if not row["elo"]:
        return ""
    if not row["elo_low"] and not row["elo_high"]:
        return row["elo"]
    low = row["elo_low"] or "-inf"
    high = row["elo_high"] or "+inf"
    return f"{row['elo']} ({low} .. {high})"


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def table(rows: Sequence[Row], full: bool = False) -> str:
    """The rows as an aligned text table; with `full`, each row's command and notes on lines below it."""
    titles = ("id", "date", "technique", "commit", "tc", "W-L-D", "Elo (95%)", "LLR", "verdict")
    cells = [(row["id"], row["date"], shorten(row["technique"], TECHNIQUE_WIDTH), row["commit"],
              row["time_control"], score(row), elo_text(row), row["llr"], row["verdict"]) for row in rows]
    widths = [max(len(line[i]) for line in [titles, *cells]) for i in range(len(titles))]

    def line(values: Sequence[str]) -> str:
        return "  ".join(value.ljust(width) for value, width in zip(values, widths, strict=True)).rstrip()

    out = [line(titles), line(["-" * width for width in widths])]
    for row, values in zip(rows, cells, strict=True):
        out.append(line(values))
        if full:
            out.append(f"    baseline: {row['baseline']}")
            out.append(f"    command:  {row['command']}")
            if row["notes"]:
                out.append(f"    notes:    {row['notes']}")
    out.append(f"{len(rows)} row" if len(rows) == 1 else f"{len(rows)} rows")
    return "\n".join(out)


def as_csv(rows: Iterable[Row]) -> str:
    """The rows as CSV with the ledger's header."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=HEADER, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def command_of(rows: Iterable[Row], row_id: str) -> str:
    """The command of the row named `row_id` (KeyError when there is none)."""
    for row in rows:
        if row["id"] == row_id:
            return row["command"]
    raise KeyError(row_id)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.ledger", description=__doc__.splitlines()[0])
    parser.add_argument("--technique", help="only rows whose technique contains this text (any case)")
    parser.add_argument("--verdict", choices=VERDICTS, help="only rows with this verdict")
    parser.add_argument("--id", dest="row_id", help="only rows whose id contains this text (ab-, ev-, mc-, ...)")
    parser.add_argument("--csv", action="store_true", help="print the selected rows as CSV")
    parser.add_argument("--full", action="store_true", help="print each row's baseline, command and notes too")
    parser.add_argument("--command", metavar="ID", help="print only the command of the row with this id")
    parser.add_argument("--file", type=Path, default=LEDGER, help="the ledger to read (default: docs/experiments.csv)")
    args = parser.parse_args(argv)
    if args.command:
        try:
            print(command_of(read_ledger(args.file), args.command))
        except KeyError:
            print(f"no row {args.command!r} in {args.file}", file=sys.stderr)
            return 1
        return 0
    rows = select(read_ledger(args.file), args.technique, args.verdict, args.row_id)
    sys.stdout.write(as_csv(rows) if args.csv else table(rows, full=args.full) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
