"""Parsing of the commands with arguments: `position`, `go` and `setoption`.

The parsers only read text; they never touch the board. A `go` is parsed tolerantly
(a bad token is reported and skipped, the rest still counts), a `position` strictly
(anything wrong rejects the whole command, so the previous position stays).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from search.limits import MAX_DEPTH
from uci_engine.options import shown

MAX_MS = 2**31 - 1            # ~24 days: anything longer is as good as no limit, and fits a C int
MAX_NODES = 2**63 - 1
MAX_MOVESTOGO = 10_000
MAX_PERFT = 15

_INTEGER = re.compile(r"[+-]?[0-9]+")

# go keyword -> (smallest, largest) accepted value; times below 0 mean the flag fell: 0.
_TIME_KEYS = ("wtime", "btime", "winc", "binc", "movetime")
_BOUNDED_KEYS: dict[str, tuple[int, int]] = {
    "movestogo": (1, MAX_MOVESTOGO),
    "depth": (1, MAX_DEPTH),
    "nodes": (1, MAX_NODES),
    "mate": (1, MAX_DEPTH // 2),
    "perft": (1, MAX_PERFT),
}
GO_FLAGS = ("infinite", "ponder")
GO_KEYWORDS = frozenset(_TIME_KEYS) | frozenset(_BOUNDED_KEYS) | frozenset(GO_FLAGS) | {"searchmoves"}


class CommandError(ValueError):
    """A command that cannot be carried out, with the reason for the GUI."""


@dataclass
class GoCommand:
    """The arguments of one `go`; numbers already checked and clamped."""

    numbers: dict[str, int] = field(default_factory=dict)
    infinite: bool = False
    ponder: bool = False
    searchmoves: list[str] = field(default_factory=list)
    perft: int | None = None
    warnings: list[str] = field(default_factory=list)


def parse_go(args: list[str]) -> GoCommand:
    """Parse the words after `go`. Every problem becomes a warning; nothing raises."""
    go = GoCommand()
    i = 0
    while i < len(args):
        word = args[i].lower()
        i += 1
        if word in GO_FLAGS:
            setattr(go, word, True)
        elif word == "searchmoves":
            while i < len(args) and args[i].lower() not in GO_KEYWORDS:
                go.searchmoves.append(args[i])
                i += 1
        elif word in _TIME_KEYS or word in _BOUNDED_KEYS:
            if i >= len(args) or args[i].lower() in GO_KEYWORDS:
                go.warnings.append(f"go: {word} needs a number; ignored")
                continue
            text = args[i]
            i += 1
            number = _go_number(word, text, go.warnings)
            if number is None:
                continue
            if word == "perft":
                go.perft = number
            else:
                go.numbers[word] = number
        else:
            go.warnings.append(f"go: unknown word {shown(args[i - 1])} ignored")
    return go


def _go_number(word: str, text: str, warnings: list[str]) -> int | None:
    """The checked value of `word text`, or None (with a warning) when it makes no sense."""
    if not _INTEGER.fullmatch(text):
        warnings.append(f"go: {word} takes a whole number, not {shown(text)}; ignored")
        return None
    number = int(text)
    if word in _TIME_KEYS:
        # Some GUIs send a negative clock once a flag has fallen: no time left.
        if number > MAX_MS:
            warnings.append(f"go: {word} {number} is more than {MAX_MS}; using {MAX_MS}")
        return min(max(number, 0), MAX_MS)
    low, high = _BOUNDED_KEYS[word]
    if number < low:
        if word in ("movestogo", "perft"):
            warnings.append(f"go: {word} must be at least {low}, not {number}; ignored")
            return None
        warnings.append(f"go: {word} must be at least {low}, not {number}; using {low}")
        return low
    if number > high:
        warnings.append(f"go: {word} {number} is more than {high}; using {high}")
        return high
    return number


def parse_position(args: list[str]) -> tuple[str | None, list[str]]:
    """The FEN (None for the start position) and the moves of `position ...`; CommandError if malformed."""
    if not args:
        raise CommandError("position needs startpos or fen <FEN>")
    head = args[0].lower()
    lowered = [a.lower() for a in args]
    moves_at = lowered.index("moves") if "moves" in lowered else len(args)
    moves = args[moves_at + 1:]
    if head == "startpos":
        if moves_at != 1:
            raise CommandError(f"position startpos: unexpected {shown(' '.join(args[1:moves_at]))} "
                               "(expected moves ...)")
        return None, moves
    if head == "fen":
        fen = " ".join(args[1:moves_at])
        if not fen:
            raise CommandError("position fen: the FEN is missing")
        return fen, moves
    raise CommandError(f"position: expected startpos or fen, not {shown(args[0])}")


def parse_setoption(line: str) -> tuple[str, str | None]:
    """Name and raw value of `setoption name <name> [value <value>]`.

    Names may hold spaces ("Move Overhead"), values too (book paths), so both are
    cut from the line itself rather than rebuilt from words.
    """
    match = re.match(r"\s*setoption\s+name\s+(.*?)(?:\s+value(?:\s+(.*?))?)?\s*$", line,
                     re.IGNORECASE | re.DOTALL)
    if not match or not match.group(1).strip():
        raise CommandError("expected setoption name <name> [value <value>]")
    name, value = match.group(1), match.group(2)
    if value is None and re.search(r"\svalue\s*$", line, re.IGNORECASE):
        value = ""
    return " ".join(name.split()), value
