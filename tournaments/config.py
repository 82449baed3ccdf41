"""What a run is made of: engines, time controls, openings, adjudication, SPRT.

Everything here is plain data that round-trips through JSON, so that a config
file and the resume state file describe a run the same way.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

from tournaments.timecontrol import TimeControl

# Per-move PGN comment fields that ``-pgnout`` can add, in the order written (as fastchess writes them).
PGN_EXTRAS = ("seldepth", "nodes", "nps", "timeleft")


class ConfigError(ValueError):
    """A run that cannot start as configured; the message is for the user."""


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
            data["command"] = shlex.split(data["command"])
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
    recover: bool = True  # restart crashed or stalled engines and keep going; False stops the run
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
    pgn_extras: list[str] = field(default_factory=list)  # per-move PGN fields: nodes seldepth nps timeleft
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
