"""What a resume state may hold: the run's digest, and a check of every field read back from disk.

A state file and its journals are read back after crashes, copies and hand
edits, so nothing in them is trusted: each field is checked for its type and
range here, and a wrong one is a ``StateFieldError`` naming the field, which
``state.load_state`` turns into a one-line refusal. Nothing wrong reaches the
runner as a traceback, or as a game that silently drops out of the score.

The run digest names the run a state and its journal lines belong to: a hash of
the settings that decide which games are played and how (engines and their
options, time controls, openings, seed, rounds and games, adjudication, SPRT,
variant...). Settings that ``-resume`` may change (concurrency, recovery, the
backend) and the places output goes are left out, so moving a run to another
folder or another machine does not change its digest.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import types
import typing
from typing import Any

# Config keys outside the digest: what -resume may change, where the output goes, and how progress is shown.
NOT_IN_DIGEST = frozenset({
    "concurrency", "recover", "backend", "scheduler", "scale_tc",
    "pgnout", "state_file", "plot", "epdout", "log", "pgn_append", "epd_append", "log_append",
    "report_every", "output",
})
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
FINISHED_GAME_FIELDS = ("index", "pair", "round", "white", "black", "opening", "result", "termination", "reason",
                        "plies")


class StateFieldError(ValueError):
    """A field of a state file or journal line that is missing or wrong; the message names it."""


class ForeignRun(StateFieldError):
    """A journal line of another run (copied, or left by another run under the same file name)."""


def run_digest(config: dict[str, Any], seed: int) -> str:
    """The run's name: 16 hex digits of a hash of ``config`` (less ``NOT_IN_DIGEST``) and ``seed``."""
    kept = {key: value for key, value in config.items() if key not in NOT_IN_DIGEST}
    text = json.dumps({"config": kept, "seed": seed}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def describe(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, bool, type(None))) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def whole(value: Any, what: str, least: int = 0) -> int:
    """``value`` as an int of at least ``least`` (a bool or a string such as "1" is refused)."""
    if type(value) is not int or value < least:
        raise StateFieldError(f"{what} is {describe(value)}, not a whole number of at least {least}")
    return value


def optional_whole(value: Any, what: str) -> int | None:
    return None if value is None else whole(value, what)


def text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise StateFieldError(f"{what} is {describe(value)}, not a string")
    return value


def mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise StateFieldError(f"{what} is {describe(value)}, not a JSON object")
    return value


def require(data: dict[str, Any], key: str, what: str) -> Any:
    if key not in data:
        raise StateFieldError(f"{what} has no {key!r}")
    return data[key]


def finished_game(value: Any, what: str) -> dict[str, Any]:
    """The fields of one finished game, each checked; unknown or missing fields are refused."""
    data = mapping(value, what)
    unknown = sorted(set(data) - set(FINISHED_GAME_FIELDS))
    if unknown:
        raise StateFieldError(f"{what} has an unknown field {unknown[0]!r}")
    for key in FINISHED_GAME_FIELDS:
        require(data, key, what)
    for key in ("index", "pair", "opening", "plies"):
        whole(data[key], f"{what}'s {key}")
    whole(data["round"], f"{what}'s round", least=1)
    for key in ("white", "black", "termination", "reason"):
        text(data[key], f"{what}'s {key}")
    if data["result"] not in RESULTS:
        raise StateFieldError(f"{what}'s result is {describe(data['result'])}, not one of {', '.join(RESULTS)}")
    return data


def _matches(value: Any, hint: Any) -> bool:
    """Whether ``value`` (read from JSON, then built into dataclasses) has the type ``hint`` declares."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, arm) for arm in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:  # JSON writes 5.0 as 5.0, but a hand-written config may say 5
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if hint is Any:
        return True
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_matches(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(hint)
        return isinstance(value, dict) and all(_matches(k, key) and _matches(v, item) for k, v in value.items())
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return isinstance(value, hint) and not dataclass_errors(value)
    return isinstance(value, hint) if isinstance(hint, type) else True


def dataclass_errors(obj: Any, where: str = "") -> list[str]:
    """The fields of dataclass ``obj`` (nested ones too) whose values do not have their declared types."""
    errors: list[str] = []
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        name = f"{where}{f.name}"
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            errors += dataclass_errors(value, name + ".")
        elif isinstance(value, list) and value and all(dataclasses.is_dataclass(v) for v in value):
            for i, item in enumerate(value):
                errors += dataclass_errors(item, f"{name}[{i}].")
        elif not _matches(value, hints[f.name]):
            errors.append(f"{name} is {describe(value)}")
    return errors
