"""The resume state: the run's configuration and every finished game, rewritten atomically.

The file is replaced (write to a temporary file, fsync, rename) after each
game, so that after a SIGKILL it holds either the old or the new list, never
half of one. Its ``pgn_offset`` is the PGN file's length after the last game
it records; a resumed run cuts the PGN back to it.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from tournaments.config import ConfigError, TournamentConfig

STATE_VERSION = 1


@dataclass
class FinishedGame:
    """What the state file remembers of a game (enough for the tables, the SPRT and the plot)."""

    index: int
    pair: int
    round: int
    white: str
    black: str
    opening: int
    result: str
    termination: str
    reason: str
    plies: int


@dataclass
class RunState:
    config: dict[str, Any]
    seed: int
    pgn_offset: int = 0
    games: list[FinishedGame] = field(default_factory=list)
    stopped: str = ""  # why the run ended early (SPRT decision), "" while it goes on
    # Lengths of the -epdout and -log files after the last recorded game (None: not written yet).
    epd_offset: int | None = None
    log_offset: int | None = None

    def finished_indices(self) -> set[int]:
        return {g.index for g in self.games}


def save_state(path: str | None, state: RunState) -> None:
    if path is None:
        return
    data = {"version": STATE_VERSION, "config": state.config, "seed": state.seed,
            "pgn_offset": state.pgn_offset, "stopped": state.stopped,
            "epd_offset": state.epd_offset, "log_offset": state.log_offset,
            "games": [asdict(g) for g in state.games]}
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    # The rename itself must reach the disk too, or a crash could bring back the old file.
    directory = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def load_state(path: str) -> RunState:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as err:
        raise ConfigError(f"cannot resume from {path}: {err}") from None
    if data.get("version") != STATE_VERSION:
        raise ConfigError(f"{path}: unknown state version {data.get('version')!r}")
    return RunState(config=data["config"], seed=data["seed"], pgn_offset=data["pgn_offset"],
                    games=[FinishedGame(**g) for g in data["games"]], stopped=data.get("stopped", ""),
                    epd_offset=data.get("epd_offset"), log_offset=data.get("log_offset"))


def config_of(state: RunState) -> TournamentConfig:
    return TournamentConfig.from_dict(state.config)
