"""SPSA tuning of the search parameters (search/param_table.py) through the project's runner.

Simultaneous perturbation stochastic approximation, the method of Stockfish's fishtest:
each iteration perturbs every tuned parameter at once by +-c_k (a random sign each),
plays a few game pairs between the two perturbed engines with the tournament runner
(``python -m tournaments``, which the tuner runs as a process: it never imports it), and
moves the parameters along the measured gradient:

    theta_i += a_k * (score_plus - score_minus) / (2 c_k,i * sign_i),
    a_k = a / (A + k + 1) ** alpha,   c_k,i = c_i / (k + 1) ** gamma

where score is the plus engine's points per game in [0, 1].  Progress is printed each
iteration and the state is saved after each, so an interrupted run resumes with
``--resume``.  The result is written as a table of values (JSON) that ``SearchParams``
accepts; it is adopted only after an SPRT against the defaults.

    python -m tools.spsa --params rfp_margin,futility_base --iterations 200 \\
        --each tc=2+0.02 timemargin=50 --pairs 2 --concurrency 2 --out tuned.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import chess.pgn

from search.param_table import SEARCH_PARAMS, checked_params, default_params
from tools.arguments import (
    ToolParser,
    fail,
    finite_float,
    int_range,
    parse,
    positive_int,
    readable_file,
    shell_words,
    writable_output,
)

# Step sizes as fishtest suggests them: c about 1/20 of the range, and a such that the
# first steps move a parameter by about as much as c.
DEFAULT_ALPHA = 0.602
DEFAULT_GAMMA = 0.101


@dataclass
class SpsaState:
    """What a run has reached: enough to resume it and to read its result."""

    names: list[str]
    theta: dict[str, float]
    iteration: int = 0
    a: float = 0.0
    big_a: float = 0.0
    c: dict[str, float] = field(default_factory=dict)
    seed: int = 1
    history: list[dict[str, float]] = field(default_factory=list)


def engine_params(state: SpsaState, values: dict[str, float]) -> str:
    """The `SearchParams` option text for `values`, rounded and clamped into each range."""
    entries = []
    for name in state.names:
        param = SEARCH_PARAMS[name]
        value = min(param.high, max(param.low, values[name]))
        entries.append(f"{name}={round(value) if param.integer else round(value, 4)}")
    return ",".join(entries)


def play_pairs(engine_cmd: str, plus: str, minus: str, pairs: int, each: list[str], book: str | None,
               seed: int, runner: list[str], concurrency: int = 1,
               runner_options: list[str] | None = None) -> tuple[float, int]:
    """Play `pairs` game pairs plus vs minus; (points of plus per game, games counted).
    `runner_options` are more of the runner's words, such as its adjudication."""
    with tempfile.TemporaryDirectory(prefix="kestrel-spsa-") as folder:
        pgn_path = Path(folder) / "games.pgn"
        command = [*runner,
                   "-engine", f"cmd={engine_cmd}", "name=plus", f"option.SearchParams={plus}",
                   "-engine", f"cmd={engine_cmd}", "name=minus", f"option.SearchParams={minus}",
                   "-each", *each,
                   "-games", "2", "-rounds", str(pairs), "-srand", str(seed), "-concurrency", str(concurrency),
                   "-pgnout", str(pgn_path), "-report-every", "1000",
                   "-recover",  # a crash costs its game, not the iteration (the runner stops without it)
                   *(runner_options or [])]
        if book:
            command += ["-openings", f"file={book}", "order=random"]
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        if completed.returncode != 0 or not pgn_path.exists():
            raise RuntimeError(f"the runner failed (exit {completed.returncode}): {completed.stderr.strip()[-500:]}")
        points = 0.0
        games = 0
        with open(pgn_path) as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                result = game.headers.get("Result", "*")
                if result not in ("1-0", "0-1", "1/2-1/2"):
                    continue
                white_points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
                points += white_points if game.headers.get("White") == "plus" else 1.0 - white_points
                games += 1
        return (points / games if games else 0.5), games


def step(state: SpsaState, args: argparse.Namespace, rng: random.Random, runner: list[str]) -> None:
    """One SPSA iteration: perturb, play, move theta along the measured gradient."""
    k = state.iteration
    a_k = state.a / (state.big_a + k + 1) ** args.alpha
    signs = {name: rng.choice((-1.0, 1.0)) for name in state.names}
    c_k = {name: state.c[name] / (k + 1) ** args.gamma for name in state.names}
    plus = {name: state.theta[name] + c_k[name] * signs[name] for name in state.names}
    minus = {name: state.theta[name] - c_k[name] * signs[name] for name in state.names}
    book = None if args.book is None else str(args.book)
    score, games = play_pairs(args.engine, engine_params(state, plus), engine_params(state, minus),
                              args.pairs, args.each, book, state.seed + k, runner, args.concurrency,
                              args.runner_options)
    # Points of plus minus points of minus per game: 2 * score - 1, in [-1, 1].
    difference = 2.0 * score - 1.0
    for name in state.names:
        param = SEARCH_PARAMS[name]
        # The gain is scaled by c_i^2 so that every parameter moves in units of its own range.
        moved = state.theta[name] + a_k * state.c[name] ** 2 * difference / (c_k[name] * signs[name])
        state.theta[name] = min(param.high, max(param.low, moved))
    state.iteration += 1
    state.history.append(dict(state.theta))
    shown = " ".join(f"{name}={state.theta[name]:.2f}" for name in state.names)
    print(f"iteration {state.iteration:4d}  games {games}  plus scored {score:.3f}  {shown}", flush=True)


def new_state(names: list[str], args: argparse.Namespace) -> SpsaState:
    theta = {name: float(default_params()[name]) for name in names}
    c = {name: (SEARCH_PARAMS[name].high - SEARCH_PARAMS[name].low) / 20.0 for name in names}
    big_a = 0.1 * args.iterations
    # a_0 / c^2 * c^2 moves a parameter by about c when the perturbed engines differ by a
    # whole point per game; real differences are a few per cent, so a is large.
    a = args.gain * (big_a + 1) ** args.alpha
    return SpsaState(names=names, theta=theta, a=a, big_a=big_a, c=c, seed=args.seed)


def main(argv: list[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.spsa", description=__doc__.split("\n\n")[0])
    parser.add_argument("--params", required=True,
                        help="comma-separated names from search/param_table.py (or 'all')")
    parser.add_argument("--iterations", type=positive_int, default=100)
    parser.add_argument("--pairs", type=positive_int, default=2, help="game pairs per iteration")
    parser.add_argument("--concurrency", type=int_range(1, 256), default=1,
                        help="games played at once (one per core)")
    parser.add_argument("--each", nargs="+", default=["tc=2+0.02", "timemargin=50"],
                        help="the runner's -each settings of both engines (time control, nodes=...)")
    parser.add_argument("--book", type=readable_file, default=None, help="an EPD opening book for the games")
    # Adjudication ends decided and dead-drawn games early, and an SPSA run costs its games.
    parser.add_argument("--runner-options", type=shell_words, default=[],
                        help="more of the runner's words, quoted as one argument, such as its adjudication: "
                             "'-resign movecount=3 score=600 twosided=true -draw movenumber=40 movecount=8 score=10'")
    parser.add_argument("--engine", default="kestrel", help="the engine command (needs the SearchParams option)")
    parser.add_argument("--gain", type=finite_float(0.0, low_open=True), default=5.0,
                        help="a: larger moves faster and noisier")
    # Spall's conditions for convergence ask for decaying gains and perturbations: exponents in 0..1.
    parser.add_argument("--alpha", type=finite_float(0.0, 1.0), default=DEFAULT_ALPHA)
    parser.add_argument("--gamma", type=finite_float(0.0, 1.0), default=DEFAULT_GAMMA)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--state", type=writable_output, default="spsa-state.json",
                        help="where progress is saved after each iteration")
    parser.add_argument("--resume", action="store_true", help="continue the run saved in --state")
    parser.add_argument("--out", type=writable_output, default="spsa-tuned.json",
                        help="the tuned values (JSON) when the run ends")
    args = parse(parser, argv)
    if args is None:
        return 2

    names = list(SEARCH_PARAMS) if args.params == "all" else [n.strip() for n in args.params.split(",") if n.strip()]
    unknown = [name for name in names if name not in SEARCH_PARAMS]
    if unknown or not names:
        return fail(parser.prog, f"unknown parameter(s) {', '.join(unknown) or '(none given)'}; "
                                 "give names from search/param_table.py or 'all'")
    try:
        engine_words = shlex.split(args.engine)
    except ValueError as exc:
        return fail(parser.prog, f"argument --engine: {exc}; quote the command as a shell would")
    program = engine_words[0] if engine_words else ""
    if shutil.which(program) is None:
        return fail(parser.prog, f"argument --engine: no such program {program!r}; "
                                 "give the engine's command (pip install -e . provides 'kestrel')")
    state_path: Path = args.state
    if args.resume:
        if not state_path.is_file():
            return fail(parser.prog, f"no saved run at {state_path}; start without --resume")
        try:
            state = SpsaState(**json.loads(state_path.read_text()))
            if not isinstance(state.names, list) or not isinstance(state.theta, dict):
                raise TypeError("names or theta of the wrong type")
        except (OSError, ValueError, TypeError) as exc:
            return fail(parser.prog, f"{state_path} is not a saved SPSA run ({exc}); start without --resume")
        if state.names != names:
            return fail(parser.prog, f"the saved run tunes {','.join(state.names)}, not {','.join(names)}")
    else:
        state = new_state(names, args)
    rng = random.Random(state.seed * 1_000_003 + state.iteration)
    runner = [sys.executable, "-m", "tournaments"]
    try:
        while state.iteration < args.iterations:
            step(state, args, rng, runner)
            temporary = state_path.with_suffix(".tmp")
            temporary.write_text(json.dumps(asdict(state), indent=1))
            os.replace(temporary, state_path)
    except (RuntimeError, KeyboardInterrupt) as exc:
        print(f"spsa: stopped at iteration {state.iteration} ({exc or 'interrupted'}); "
              f"--resume continues from {state_path}", file=sys.stderr)
        return 1
    tuned = checked_params({name: state.theta[name] for name in names})
    result = {name: tuned[name] for name in names}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"tuned values written to {args.out}; as a UCI option: "
          f"setoption name SearchParams value {','.join(f'{k}={v}' for k, v in result.items())}")
    if any(math.isnan(v) for v in result.values()):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
