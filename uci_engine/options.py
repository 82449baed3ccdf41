"""The UCI options Kestrel declares: their types, defaults and bounds, and how values are checked.

An option that configures a searcher carries an ``apply`` function; the loop calls it
whenever the value differs from what the searcher last received (see ``UciEngine._sync``).
Adding an option is one ``Option(...)`` entry in ``build_options``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from search.limits import MAX_HASH_MB, MAX_MULTIPV, MAX_THREADS
from search.mcts_settings import SETTINGS as MCTS_SETTINGS
from search.mcts_settings import Setting
from uci_engine.strength import FULL_STRENGTH_ELO, MAX_SKILL_LEVEL, MIN_ELO

OptionValue = bool | int | str | None
Applier = Callable[[Any, Any], None]


MAX_MOVE_OVERHEAD_MS = 5000

_INTEGER = re.compile(r"[+-]?[0-9]+")
OPTION_TYPES = ("check", "spin", "combo", "button", "string")


class OptionError(ValueError):
    """A `setoption` that names no option or gives a value the option does not accept."""


@dataclass
class Option:
    """One declared option and its current value."""

    name: str
    type: str
    default: OptionValue = None
    min: int | None = None
    max: int | None = None
    vars: tuple[str, ...] = ()
    apply: Applier | None = None          # sets the value on a searcher
    modes: tuple[str, ...] = ()              # the search modes `apply` concerns; () = every mode
    value: OptionValue = field(init=False)

    def __post_init__(self) -> None:
        if self.type not in OPTION_TYPES:
            raise ValueError(f"unknown option type {self.type!r}")
        self.value = self.default

    def declaration(self) -> str:
        """The `option ...` line of the `uci` answer."""
        words = [f"option name {self.name} type {self.type}"]
        if self.type == "check":
            words.append(f"default {'true' if self.default else 'false'}")
        elif self.type == "spin":
            words.append(f"default {self.default} min {self.min} max {self.max}")
        elif self.type == "combo":
            words.append(f"default {self.default}")
            words.extend(f"var {v}" for v in self.vars)
        elif self.type == "string":
            # The protocol's spelling of an empty string, as Stockfish declares SyzygyPath.
            words.append(f"default {self.default or '<empty>'}")
        return " ".join(words)

    def parse(self, text: str | None) -> OptionValue:
        """The value `text` stands for; OptionError with the reason if it is not acceptable."""
        if self.type == "button":
            return None
        if self.type == "string":
            value = "" if text is None else text.strip()
            return "" if value == "<empty>" else value
        if text is None or not text.strip():
            raise OptionError(f"option {self.name} needs a value (setoption name {self.name} value ...)")
        text = text.strip()
        if self.type == "check":
            if text.lower() not in ("true", "false"):
                raise OptionError(f"option {self.name} takes true or false, not {shown(text)}")
            return text.lower() == "true"
        if self.type == "spin":
            if not _INTEGER.fullmatch(text):
                raise OptionError(f"option {self.name} takes an integer from {self.min} to {self.max}, "
                                  f"not {shown(text)}")
            number = int(text)
            assert self.min is not None and self.max is not None
            if not self.min <= number <= self.max:
                raise OptionError(f"option {self.name} must be from {self.min} to {self.max}, not {number}")
            return number
        # combo: the protocol's names are case-insensitive, the stored value is the declared spelling.
        for var in self.vars:
            if var.lower() == text.lower():
                return var
        raise OptionError(f"option {self.name} takes one of {', '.join(self.vars)}, not {shown(text)}")


def _key(name: str) -> str:
    """Option names compare case-insensitively and with any run of spaces as one."""
    return " ".join(name.split()).lower()


class OptionTable:
    """The declared options in declaration order, looked up case-insensitively."""

    def __init__(self, options: list[Option]) -> None:
        self._options: dict[str, Option] = {_key(o.name): o for o in options}

    def __iter__(self) -> Iterator[Option]:
        return iter(self._options.values())

    def __contains__(self, name: str) -> bool:
        return _key(name) in self._options

    def __getitem__(self, name: str) -> Option:
        try:
            return self._options[_key(name)]
        except KeyError:
            raise OptionError(f"no option named {shown(name)} (options: "
                              f"{', '.join(o.name for o in self)})") from None

    def value(self, name: str) -> OptionValue:
        return self[name].value

    def integer(self, name: str) -> int:
        """The value of a spin option."""
        value = self[name].value
        if not isinstance(value, int):
            raise OptionError(f"option {name} holds no number")
        return value

    def set(self, name: str, text: str | None) -> Option:
        """Check and store a value; the option is left unchanged when OptionError is raised."""
        option = self[name]
        option.value = option.parse(text)
        return option


def shown(text: str, limit: int = 60) -> str:
    """`text` quoted for an `info string`: printable ASCII on one line, escapes for the rest."""
    if len(text) > limit:
        text = text[:limit] + "..."
    return "'" + "".join(c if c.isascii() and c.isprintable() else c.encode("unicode_escape").decode("ascii")
                         for c in text) + "'"


def _setter(attribute: str, scale: float = 1.0) -> Applier:
    """An applier that stores the value (divided by `scale`) in a searcher attribute."""
    if scale == 1.0:
        return lambda searcher, value: setattr(searcher, attribute, value)
    return lambda searcher, value: setattr(searcher, attribute, value / scale)


def _set_hash(searcher: Any, megabytes: Any) -> None:
    searcher.set_hash(megabytes)


def _set_search_params(searcher: Any, text: Any) -> None:
    """`SearchParams`: 'name=value,name=value' entries of search/param_table.py (the rest at their
    defaults), for tuners; ValueError for an unknown name, a bad number or a value out of range."""
    values = {}
    for entry in str(text).replace(";", ",").split(","):
        if not entry.strip():
            continue
        name, sep, number = entry.partition("=")
        if not sep:
            raise ValueError(f"{entry.strip()!r} is not name=value")
        try:
            values[name.strip()] = float(number)
        except ValueError:
            raise ValueError(f"{number.strip()!r} is not a number for {name.strip()}") from None
    searcher.set_params(values)


def mcts_option(setting: Setting) -> Option:
    """The UCI option of an MCTS searcher's setting (search/mcts_settings.py): a combo for a
    choice, a check for a switch, else a spin in 1/scale units (UCI has no real-valued type)."""
    apply = _setter(setting.attribute, float(setting.scale))
    if setting.choices:
        return Option(setting.option, "combo", str(setting.default), vars=setting.choices, apply=apply,
                      modes=("MCTS",))
    if isinstance(setting.default, bool):
        return Option(setting.option, "check", setting.default, apply=apply, modes=("MCTS",))
    return Option(setting.option, "spin", round(float(setting.default) * setting.scale),
                  round(setting.low * setting.scale), round(setting.high * setting.scale), apply=apply, modes=("MCTS",))


def build_options(search_modes: tuple[str, ...] = ("AlphaBeta",),
                  eval_file_default: str = "<built-in>") -> OptionTable:
    """Every option Kestrel declares; the MCTS ones only when the MCTS searcher is there.
    `eval_file_default` is the built-in net's file name (EvalFile's default, as Stockfish declares it)."""
    options = [
        Option("Hash", "spin", 16, 1, MAX_HASH_MB, apply=_set_hash),
        # Lazy SMP threads of the alpha-beta searcher; threads growing one tree in MCTS.
        Option("Threads", "spin", 1, 1, MAX_THREADS, apply=_setter("threads"), modes=("AlphaBeta", "MCTS")),
        Option("MultiPV", "spin", 1, 1, MAX_MULTIPV, apply=_setter("multipv")),
        Option("Ponder", "check", False),
        Option("Move Overhead", "spin", 50, 0, MAX_MOVE_OVERHEAD_MS, apply=_setter("move_overhead")),
        Option("Clear Hash", "button"),
        Option("SearchMode", "combo", "AlphaBeta", vars=search_modes),
        Option("OwnBook", "check", False),
        Option("BookFile", "string", ""),
        Option("UCI_Chess960", "check", False),
        # Human levels: UCI_Elo when UCI_LimitStrength is on, else Skill Level below its top.  UCI_Elo's
        # range is the strength curve's (uci_engine/strength.py): from Stockfish's lower end to where
        # the curve meets Kestrel's full strength (docs/play.md has the calibration).
        Option("UCI_LimitStrength", "check", False),
        Option("UCI_Elo", "spin", FULL_STRENGTH_ELO, MIN_ELO, FULL_STRENGTH_ELO),
        Option("Skill Level", "spin", MAX_SKILL_LEVEL, 0, MAX_SKILL_LEVEL),
        # Syzygy tablebases at the root, as Stockfish names the options.
        Option("SyzygyPath", "string", ""),
        Option("SyzygyProbeDepth", "spin", 1, 1, 100),
        Option("Syzygy50MoveRule", "check", True),
        Option("SyzygyProbeLimit", "spin", 7, 0, 7),
        Option("UCI_ShowWDL", "check", False),
        # The learned evaluation (uci_engine/evaluation.py), the default since it beat the weighted
        # evaluation of eval/weights.py in games (docs/nnue.md); false plays with that one.
        Option("Use NNUE", "check", True),
        Option("EvalFile", "string", eval_file_default),
        # Sent by some GUIs; accepted, and they change nothing in the search.
        Option("UCI_AnalyseMode", "check", False),
        Option("UCI_Opponent", "string", ""),
        # For tuners (python -m tools.spsa): empty means every search parameter at its default.
        Option("SearchParams", "string", "", apply=_set_search_params),
    ]
    if "MCTS" in search_modes:
        options += [mcts_option(setting) for setting in MCTS_SETTINGS]
    return OptionTable(options)
