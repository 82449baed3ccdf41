"""Nets and training data for tests: a net that says the same about every position, seeded random
nets of a trained net's magnitudes, and labelled positions in the trainer's record format."""

from __future__ import annotations

import random
from array import array
from pathlib import Path
from typing import Any

from conftest import REPO_ROOT

from eval.api import evaluate
from eval.networks import network_of
from eval.nnue import Network
from eval.nnue_architecture import INPUTS
from eval.nnue_file import QA, QB, SCALE, NetParameters, write_net
from search.board.position import Position
from tools.nnue_data import RESULT_DRAW, RESULT_LOSS, RESULT_WIN, pack

INT16_MAX = 32767
# A real trained net of the first format (version 1: plain inputs, one output bucket), kestrel-5, kept
# for the tests now that the package ships the current net alone.
PLAIN_NET = REPO_ROOT / "tests" / "nets" / "kestrel-5.nnue"
# A decisive result for labelled_records: roughly where the weighted evaluation's games are decided.
DECISIVE_CP = 300


def constant_net_file(path: Path, centipawns: int = 1235) -> Path:
    """A net whose only weight is its output bias: every position is +`centipawns` for the side to move."""
    hidden = 16
    write_net(path, NetParameters(hidden=hidden, qa=QA, qb=QB, scale=SCALE, description="test: constant",
                                  feature_weights=array("h", [0] * (INPUTS * hidden)),
                                  feature_bias=array("h", [0] * hidden),
                                  output_weights=array("h", [0] * (2 * hidden)),
                                  output_biases=(centipawns * QA * QB // SCALE,)))
    return path


def random_parameters(hidden: int = 256, seed: int = 1, output_range: int = 12, buckets: int = 1,
                      feature_set: int = 0) -> dict[str, Any]:
    """``Network(**random_parameters(...))``: seeded random weights of a trained net's magnitudes.

    Accumulators spread over about -250..400, so both clamps of the activation bite; output weights
    are drawn from -output_range..output_range (above 128 the network takes the 64-bit output path),
    for each of `buckets` output layers (the first drawn as a one-bucket net's), the inputs
    those of `feature_set`.
    """
    rng = random.Random(seed)

    def output_layer() -> list[int]:
        ours = [rng.randint(-output_range, output_range) for _ in range(hidden)]
        # A trained net weighs the other side's units about as the negative of its own: a symmetric
        # position then scores near zero.  The halves still differ, by a little noise.
        noise = max(1, output_range // 8)
        return ours + [max(-INT16_MAX - 1, min(INT16_MAX, -w + rng.randint(-noise, noise))) for w in ours]

    output_weights = output_layer()
    parameters = {
        "hidden": hidden, "qa": QA, "qb": QB, "scale": SCALE, "feature_set": feature_set,
        "feature_weights": array("h", [max(-INT16_MAX, min(INT16_MAX, round(rng.gauss(0.0, 24.0))))
                                       for _ in range(INPUTS * hidden)]),
        "feature_bias": array("h", [rng.randint(-64, 192) for _ in range(hidden)]),
    }
    biases = [rng.randint(-50, 50)]
    for _ in range(buckets - 1):
        output_weights += output_layer()
        biases.append(rng.randint(-50, 50))
    parameters["output_weights"] = array("h", output_weights)
    parameters["output_biases"] = tuple(biases)
    return parameters


def net_parameters(parameters: dict[str, Any], description: str = "test: random") -> NetParameters:
    """The file format's view of ``Network`` keyword arguments (as random_parameters gives them)."""
    return NetParameters(description=description, **parameters)


def random_network(hidden: int = 256, seed: int = 1, output_range: int = 12, buckets: int = 1) -> Network:
    """A Network of random_parameters(hidden, seed, output_range, buckets)."""
    return network_of(net_parameters(random_parameters(hidden, seed, output_range, buckets)))


def labelled_records(count: int, seed: int = 1, max_plies: int = 120, keep: float = 0.25) -> bytes:
    """`count` training records (tools/nnue_data.py) of positions from random games, each kept with
    probability `keep` when quiet (not in check, with a legal move), labelled by the weighted
    evaluation (side to move's view) and a result that follows from it (a win above DECISIVE_CP, a
    loss below -DECISIVE_CP, else a draw): data a net can learn something from in a few seconds."""
    rng = random.Random(seed)
    records: list[bytes] = []
    while len(records) < count:
        position = Position()
        for ply in range(rng.randint(8, max_plies)):
            moves = position.legal_moves()
            if not moves:
                break
            position.push(rng.choice(moves))
            # The first plies are close to the start position: they would repeat across games.
            if ply < 4 or rng.random() >= keep or position.is_check() or not position.legal_moves():
                continue
            score = evaluate(position)
            result = RESULT_WIN if score > DECISIVE_CP else RESULT_LOSS if score < -DECISIVE_CP else RESULT_DRAW
            records.append(pack(position.fen(), score, result))
            if len(records) == count:
                break
    return b"".join(records)
