"""The levels' calibration record, ``uci_engine/levels_record.json``, and the levels' signature.

The record binds the human levels to what they were measured with: which anchors of the curve were
measured, with which net and commit, and the games; and, for the engine that would ship, the built-in
net's checksum, the level settings and a *levels signature*: each signed level's chosen move on the
bench positions at its node budget, one thread, a fixed seed (like the bench's node count, the same
on any machine).  ``tests/test_levels.py`` recomputes the three and fails when one differs, so a new
net or a search change cannot ship without a calibration round (``python -m tools.calibrate_levels
round NAME``) or a note in the record of why the levels did not move (``python -m
tools.calibrate_levels resign --note "..."``).

The record is JSON rather than Python: the calibration tool rewrites it, and a reader diffs it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from eval.networks import BUILTIN_NET, builtin_network, builtin_path
from eval.nnue import Network
from search.bench import BENCH_POSITIONS
from search.board.position import Position
from search.limits import SearchLimits
from uci_engine import strength
from uci_engine.strength import level_for_elo, new_level_searcher, search_at_level

RECORD = Path(strength.__file__).with_name("levels_record.json")
# The levels a calibration round plays below the top (issue 74's), and those the signature covers:
# the ones below the curve's top, should a round lower it (the top plays on a clock, not a budget).
ISSUE_LEVELS = (1350, 1500, 1700, 1900, 2100, 2300)
SIGNED_LEVELS = tuple(elo for elo in ISSUE_LEVELS if elo < strength.FULL_STRENGTH_ELO)
# The first bench positions: openings, middlegames and an endgame (more cost seconds of CI at 2300).
SIGNATURE_POSITIONS = tuple(BENCH_POSITIONS[:4])
SIGNATURE_SEED = 74
SIGNATURE_HASH_MB = 16        # the Hash option's default

Record = dict[str, Any]


@dataclass(frozen=True)
class LevelsSignature:
    """How the signed levels play: each one's chosen moves and the nodes its searches took."""

    moves: dict[int, list[str]]
    nodes: dict[int, int]

    def text(self) -> str:
        """One line a level: `ELO NODES MOVE MOVE ...` (what the digest covers)."""
        return "".join(f"{elo} {self.nodes[elo]} {' '.join(self.moves[elo])}\n" for elo in sorted(self.moves))

    def plays_alike(self, other: LevelsSignature, elo: int) -> bool:
        """Whether `elo` chose the same moves in the same nodes in both signatures."""
        return self.moves.get(elo) == other.moves.get(elo) and self.nodes.get(elo) == other.nodes.get(elo)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text().encode()).hexdigest()

    def as_json(self) -> dict[str, Any]:
        return {"sha256": self.digest, "nodes": {str(elo): n for elo, n in sorted(self.nodes.items())},
                "moves": {str(elo): m for elo, m in sorted(self.moves.items())}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LevelsSignature:
        return cls(moves={int(elo): list(m) for elo, m in data["moves"].items()},
                   nodes={int(elo): int(n) for elo, n in data["nodes"].items()})


def levels_signature(network: Network | None = None, levels: tuple[int, ...] = SIGNED_LEVELS,
                     positions: tuple[str, ...] = SIGNATURE_POSITIONS) -> LevelsSignature:
    """Each level's move on each position, searched and chosen as the engine plays that level (a
    fresh table per position, one thread, the seed fixed per level and position); `network` is the
    built-in net unless given."""
    network = builtin_network() if network is None else network
    moves: dict[int, list[str]] = {}
    nodes: dict[int, int] = {}
    for elo in levels:
        level = level_for_elo(elo)
        if level is None:
            raise ValueError(f"UCI_Elo {elo} is full strength, which has no node budget to sign")
        searcher = new_level_searcher(level, network, SIGNATURE_HASH_MB)
        moves[elo], nodes[elo] = [], 0
        for index, fen in enumerate(positions):
            searcher.clear()
            rng = random.Random(f"{SIGNATURE_SEED} {elo} {index}")
            result, _ = search_at_level(searcher, Position(fen), SearchLimits(), level, rng)
            moves[elo].append(result.best_move)
            nodes[elo] += result.nodes
    return LevelsSignature(moves, nodes)


def net_sha256(path: Path | None = None) -> str:
    """The sha256 of the built-in net's file (or of `path`)."""
    return hashlib.sha256((builtin_path() if path is None else path).read_bytes()).hexdigest()


def level_settings() -> dict[str, Any]:
    """The settings that make the levels: the curve's anchors, the switches and where they apply,
    and what the signature searches."""
    return {"curve": [dataclasses.asdict(anchor) for anchor in strength.CURVE],
            "level_switches": dict(strength.LEVEL_SWITCHES), "level_switches_up_to": strength.LEVEL_SWITCHES_UP_TO,
            "signed_levels": list(SIGNED_LEVELS), "signature_positions": list(SIGNATURE_POSITIONS),
            "signature_seed": SIGNATURE_SEED, "signature_hash_mb": SIGNATURE_HASH_MB}


def read_record(path: Path = RECORD) -> Record:
    record: Record = json.loads(path.read_text(encoding="utf-8"))
    return record


def write_record(record: Record, path: Path = RECORD) -> None:
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def signed(record: Record, note: str, signature: LevelsSignature | None = None) -> Record:
    """`record` signed for the engine here (net checksum, settings, signature), with `note` (why
    it was signed: a calibration round, or why the levels did not move) added to its notes."""
    if not note.strip():
        raise ValueError("a record is signed with a note that says why")
    signature = levels_signature() if signature is None else signature
    notes = [*record.get("notes", []), {"date": date.today().isoformat(), "net": BUILTIN_NET, "note": note.strip()}]
    return {**record, "signed": {"net": BUILTIN_NET, "net_sha256": net_sha256(), "settings": level_settings(),
                                 "signature": signature.as_json()}, "notes": notes}


def differences(record: Record, signature: LevelsSignature) -> list[str]:
    """What differs between the record's signed engine and this one: the net, the settings, the moves."""
    found = []
    signed_part = record.get("signed", {})
    if signed_part.get("net_sha256") != net_sha256():
        found.append(f"the built-in net ({BUILTIN_NET}, sha256 {net_sha256()[:12]}) is not the recorded one "
                     f"({signed_part.get('net')}, sha256 {str(signed_part.get('net_sha256'))[:12]})")
    settings = signed_part.get("settings", {})
    for key, value in level_settings().items():
        if settings.get(key) != value:
            found.append(f"the level setting {key} is {value}, the record has {settings.get(key)}")
    recorded = LevelsSignature.from_json(signed_part.get("signature", {"moves": {}, "nodes": {}}))
    if recorded.digest != signature.digest:
        for elo in sorted(set(signature.moves) | set(recorded.moves)):
            if not signature.plays_alike(recorded, elo):
                found.append(f"UCI_Elo {elo} plays {signature.moves.get(elo)} in {signature.nodes.get(elo)} nodes, "
                             f"the record has {recorded.moves.get(elo)} in {recorded.nodes.get(elo)}")
    return found
