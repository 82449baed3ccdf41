"""What a run is made of: engines, time controls, openings, adjudication, SPRT.

Everything here is plain data that round-trips through JSON, so that a config
file and the resume state file describe a run the same way.
"""

from __future__ import annotations

import json
import ntpath
import os
import re
import shlex
import shutil
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

from tournaments.timecontrol import TimeControl

# Per-move PGN comment fields that ``-pgnout`` can add (fastchess's option names), in the order fastchess
# writes them, and the key each is written with (``tl=``, ``n=``, ``sd=``... as in fastchess's PGN).
PGN_EXTRAS = ("timeleft", "latency", "nodes", "seldepth", "nps", "hashfull", "tbhits", "pv")
PGN_EXTRA_KEYS = {"timeleft": "tl", "latency": "latency", "nodes": "n", "seldepth": "sd", "nps": "nps",
                  "hashfull": "hashfull", "tbhits": "tbhits", "pv": "pv"}
PGN_NOTATIONS = ("san", "lan", "uci")
# A backslash before anything but blank, a quote or another backslash is a Windows path separator, not an
# escape: ``C:\engines\sf.exe`` or ``engines\sf.exe``. A POSIX ``my\ engine`` is still an escaped blank.
_WINDOWS_PATH = re.compile(r"^\s*[\"']?([A-Za-z]:[\\/]|\\\\)|\\[^\s\"'\\]")


class ConfigError(ValueError):
    """A run that cannot start as configured; the message is for the user."""


def windows_style(command: str, on_windows: bool = os.name == "nt") -> bool:
    """True if ``command`` must be split as Windows splits it: on Windows, or when it holds a Windows path."""
    return on_windows or _WINDOWS_PATH.search(command) is not None


def split_command(command: str, on_windows: bool = os.name == "nt") -> list[str]:
    """An engine's ``cmd=`` as the words of its command line.

    POSIX ``shlex.split`` would eat the backslashes of ``C:\\engines\\sf.exe``, so a
    command that names an existing file is taken whole (a path with blanks needs no
    quotes), and a Windows one is split at blanks outside double quotes with its
    backslashes kept; anything else is split as a POSIX shell would.
    """
    if os.path.isfile(command):
        return [command]
    if not windows_style(command, on_windows):
        return shlex.split(command)
    lexer = shlex.shlex(command, posix=False)
    lexer.whitespace_split = True
    lexer.commenters = ""
    lexer.quotes = '"'  # cmd.exe quotes with double quotes only: O'Brien is a name, not a quote
    return [word[1:-1] if len(word) >= 2 and word[0] == word[-1] == '"' else word for word in lexer]


def command_name(command: list[str]) -> str:
    """The engine's default name: the file name of its program, Windows paths included."""
    program = command[0] if command else ""
    return ntpath.basename(program) if windows_style(program) else os.path.basename(program)


@dataclass
class EngineConfig:
    """One engine: how to start it and how to set it up."""

    name: str
    command: list[str]
    protocol: str = "uci"  # "uci" or "xboard"
    options: dict[str, str] = field(default_factory=dict)
    tc: TimeControl = field(default_factory=lambda: TimeControl(base=10.0, increment=0.1))
    workdir: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tc"] = self.tc.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EngineConfig:
        data = dict(data)
        if isinstance(data.get("command"), str):
            data["command"] = split_command(data["command"])
        if isinstance(data.get("tc"), dict):
            data["tc"] = TimeControl.from_dict(data["tc"])
        elif isinstance(data.get("tc"), str):
            data["tc"] = TimeControl.parse(data["tc"])
        data["options"] = {str(k): str(v) for k, v in data.get("options", {}).items()}
        return cls(**data)


@dataclass
class OpeningsConfig:
    """Where start positions come from and in which order."""

    file: str | None = None  # None: the built-in openings
    format: str | None = None  # "epd" or "pgn"; None guesses from the file name
    order: str = "sequential"  # or "random"
    plies: int | None = None  # keep at most this many book plies from PGN openings
    start: int = 1  # 1-based index of the first opening used
    # cutechess-cli's shift policy: "default" (a new opening for each pair of games), "encounter" (for each
    # new pairing of players) or "round" (every game of a round uses the round's opening).
    policy: str = "default"


@dataclass
class AdjudicationConfig:
    """When the runner ends a game that the rules have not ended yet."""

    draw_movenumber: int | None = None  # draw adjudication starts after this full move
    draw_movecount: int | None = None  # consecutive moves of each side inside the band
    draw_score: int | None = None  # centipawns: |score| <= this is drawish
    resign_movecount: int | None = None  # consecutive moves a side reports a lost score
    resign_score: int | None = None  # centipawns: score <= -this is lost
    resign_twosided: bool = False  # the opponent must agree (score >= +this)
    maxmoves: int | None = None  # full moves after the opening before a draw is declared


@dataclass
class SprtConfig:
    """A sequential probability ratio test between the first two engines."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"  # or "logistic"


@dataclass
class TournamentConfig:
    """A whole run."""

    engines: list[EngineConfig]
    kind: str = "round-robin"  # or "gauntlet" (the first engine meets all others)
    games: int = 2  # games per encounter per round; pairs share an opening with colours swapped
    rounds: int = 1
    concurrency: int = 1
    openings: OpeningsConfig = field(default_factory=OpeningsConfig)
    adjudication: AdjudicationConfig = field(default_factory=AdjudicationConfig)
    sprt: SprtConfig | None = None
    seed: int | None = None
    pgnout: str | None = None
    pgn_min: bool = False  # ``-pgnout FILE min``: moves and tags only, no comments
    state_file: str | None = None
    plot: str | None = None
    event: str = "Kestrel tournament"
    site: str = "?"
    startup_timeout: float = 10.0  # seconds for uci/uciok, isready/readyok and option setup
    hang_timeout: float = 60.0  # seconds for a move when nothing else bounds it (nodes/depth)
    # Restart crashed or stalled engines and keep going (-recover); off, as in fastchess and cutechess-cli,
    # a crash or stall stops the run after that game is recorded.
    recover: bool = False
    report_every: int = 10  # games between progress lines when stderr is not a terminal
    backend: str = "local"  # "local" or "dask"
    scheduler: str | None = None  # with dask: a scheduler address, or "local:N" for a LocalCluster
    scale_tc: bool = False  # dask: scale each worker's clocks by its measured speed
    variant: str = "standard"  # or "fischerandom" (Chess960)
    epdout: str | None = None  # final positions, one EPD line a game
    tb_path: str | None = None  # Syzygy tables for adjudication
    tb_pieces: int = 7  # adjudicate only positions with at most this many pieces
    tb_ignore50: bool = False  # a tablebase win is a win even if the fifty-move rule would save it
    noswap: bool = False  # do not swap colours in a pair: the first engine keeps White
    reverse: bool = False  # the second engine of each encounter takes White first
    wait_ms: int = 0  # milliseconds to wait between the games of a slot
    log: str | None = None  # the whole engine dialogue of each game
    pgn_extras: list[str] = field(default_factory=list)  # per-move PGN fields (PGN_EXTRAS), fastchess's -pgnout
    pgn_notation: str = "san"  # moves in the PGN: san, lan (Ng1f3) or uci (g1f3), fastchess's notation=
    # append=false (fastchess): a new run empties the file first; -resume always keeps what it recorded.
    pgn_append: bool = True
    epd_append: bool = True
    log_append: bool = True
    output: str = "cutechess"  # progress and result text for tools: "cutechess" or "fastchess"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["engines"] = [e.to_dict() for e in self.engines]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentConfig:
        data = dict(data)
        try:
            data["engines"] = [EngineConfig.from_dict(e) for e in data.get("engines", [])]
            data["openings"] = OpeningsConfig(**data.get("openings", {}))
            data["adjudication"] = AdjudicationConfig(**data.get("adjudication", {}))
            if data.get("sprt") is not None:
                data["sprt"] = SprtConfig(**data["sprt"])
            return cls(**data)
        except TypeError as err:
            raise ConfigError(f"bad config: {err}") from None

    def validate(self) -> None:
        """Raise ``ConfigError`` for a run that makes no sense, before any engine starts."""
        if len(self.engines) < 2:
            raise ConfigError("need at least two engines")
        names = [e.name for e in self.engines]
        if len(set(names)) != len(names):
            raise ConfigError(f"engine names must be unique: {names}")
        for engine in self.engines:
            if engine.protocol not in ("uci", "xboard"):
                raise ConfigError(f"{engine.name}: unknown protocol {engine.protocol!r} (uci or xboard)")
            if not engine.command:
                raise ConfigError(f"{engine.name}: no command")
        if self.kind not in ("round-robin", "gauntlet"):
            raise ConfigError(f"unknown tournament type {self.kind!r} (round-robin or gauntlet)")
        if self.games < 1 or self.rounds < 1 or self.concurrency < 1:
            raise ConfigError("games, rounds and concurrency must be at least 1")
        if self.games % 2 and self.rounds > 1 and self.openings.policy != "default":
            # An odd -games pairs the last game of a round with the first of the next (runner.schedule),
            # but these policies give the two rounds different openings: the pair could not share one.
            raise ConfigError(f"-games {self.games} pairs games across rounds, which -openings "
                              f"policy={self.openings.policy} cannot do (it changes the opening between them): "
                              f"use an even -games or policy=default")
        if self.pgn_notation not in PGN_NOTATIONS:
            raise ConfigError(f"unknown PGN notation {self.pgn_notation!r} ({', '.join(PGN_NOTATIONS)})")
        if self.backend not in ("local", "dask"):
            raise ConfigError(f"unknown backend {self.backend!r} (local or dask)")
        if self.backend == "dask" and not self.scheduler:
            raise ConfigError("-backend dask needs a scheduler address (tcp://host:8786) or local:N")
        if self.variant not in ("standard", "fischerandom"):
            raise ConfigError(f"unknown variant {self.variant!r} (standard or fischerandom)")
        if self.openings.policy not in ("default", "encounter", "round"):
            raise ConfigError(f"unknown openings policy {self.openings.policy!r} (default, encounter or round)")
        if self.output not in ("cutechess", "fastchess"):
            raise ConfigError(f"unknown output format {self.output!r} (cutechess or fastchess)")
        unknown = set(self.pgn_extras) - set(PGN_EXTRAS)
        if unknown:
            raise ConfigError(f"unknown PGN fields {sorted(unknown)} (known: {', '.join(PGN_EXTRAS)})")
        if self.wait_ms < 0 or self.tb_pieces < 3:
            raise ConfigError("-wait must not be negative and -tbpieces must be at least 3")
        if self.openings.order not in ("sequential", "random"):
            raise ConfigError(f"unknown openings order {self.openings.order!r}")
        if self.sprt is not None:
            if len(self.engines) != 2:
                raise ConfigError("SPRT needs exactly two engines")
            if not self.sprt.elo0 < self.sprt.elo1:
                raise ConfigError("SPRT needs elo0 < elo1")
            if not (0 < self.sprt.alpha < 1 and 0 < self.sprt.beta < 1):
                raise ConfigError("SPRT alpha and beta must lie between 0 and 1")
            if self.sprt.model not in ("normalized", "logistic"):
                raise ConfigError(f"unknown SPRT model {self.sprt.model!r} (normalized or logistic)")


def load_config_file(path: str) -> TournamentConfig:
    """Read a JSON config file (the same shape as ``TournamentConfig.to_dict``)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as err:
        raise ConfigError(f"cannot read config file {path}: {err}") from None
    return TournamentConfig.from_dict(data)


def kestrel_command() -> list[str]:
    """How to start Kestrel's UCI engine: the console script if installed, else the module."""
    script = shutil.which("kestrel")
    return [script] if script else [sys.executable, "-m", "uci_engine"]


def default_config() -> TournamentConfig:
    """The run a new user gets with no engines: Kestrel alpha-beta against Kestrel MCTS.

    If Kestrel does not offer MCTS yet, the runner turns the second engine into
    another alpha-beta Kestrel (see ``runner.preflight``).
    """
    tc = TimeControl(base=10.0, increment=0.1, margin=0.1)
    return TournamentConfig(
        engines=[
            EngineConfig("Kestrel-AB", kestrel_command(), options={"SearchMode": "AlphaBeta"}, tc=tc),
            EngineConfig("Kestrel-MCTS", kestrel_command(), options={"SearchMode": "MCTS"}, tc=tc),
        ],
        games=2, rounds=4, concurrency=1, event="Kestrel AlphaBeta vs MCTS",
    )
