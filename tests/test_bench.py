"""The bench signatures, pinned (Stockfish's `Bench:` practice): the total nodes of
`python -m search.bench` say which tree the alpha-beta search searches with its evaluation."""

from __future__ import annotations

import pytest

from search.bench import main as bench_main
from search.bench import run_bench

# The total nodes of the default bench (search/bench.py's BENCH_POSITIONS at DEFAULT_DEPTH, one
# thread, a fresh 16 MB table per position), with the default evaluation: the built-in net
# (eval/nets/, eval/networks.py's BUILTIN_NET).  A change that alters the searched tree (the
# search, the net or its inference) must update this number in the same commit, with its evidence:
# its SPRT in the experiments ledger.  A change that is not meant to alter the tree (a refactor, a
# speed-up, deleting a technique that was switched off) must leave it as it is.
BENCH_SIGNATURE = 1581121

# The same bench with the weighted evaluation of eval/weights.py (`--weighted`), pinned alike.
WEIGHTED_BENCH_SIGNATURE = 1988085


def signature_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert bench_main(argv) == 0
    return next(line for line in capsys.readouterr().out.splitlines() if line.startswith("Nodes searched"))


def test_bench_signature(capsys: pytest.CaptureFixture[str]) -> None:
    line = signature_line(capsys, [])
    assert line == f"Nodes searched  : {BENCH_SIGNATURE}", (
        f"bench: {line}, the signature is {BENCH_SIGNATURE}: this change alters the searched tree; "
        "if it should, update BENCH_SIGNATURE with its SPRT in the ledger")


def test_weighted_bench_signature(capsys: pytest.CaptureFixture[str]) -> None:
    line = signature_line(capsys, ["--weighted"])
    assert line == f"Nodes searched  : {WEIGHTED_BENCH_SIGNATURE}", (
        f"bench --weighted: {line}, the signature is {WEIGHTED_BENCH_SIGNATURE}: this change alters the tree "
        "searched with the weighted evaluation; if it should, update WEIGHTED_BENCH_SIGNATURE with its SPRT")


def test_the_default_bench_is_the_built_in_nets() -> None:
    from eval.networks import builtin_network
    lines: list[str] = []
    assert run_bench(5, out=lines.append, network=builtin_network())[0] != run_bench(5, out=lines.append)[0]


def test_kestrel_bench_takes_weighted(capsys: pytest.CaptureFixture[str]) -> None:
    from uci_engine.__main__ import _bench
    assert _bench(["--weighted", "5"]) == 0
    weighted = run_bench(5, out=lambda line: None)[0]
    assert f"Nodes searched  : {weighted}" in capsys.readouterr().out.splitlines()
    assert _bench(["--weighted", "--weighted", "5"]) == 2 and _bench(["5", "deep"]) == 2
