"""The bench signature, pinned (Stockfish's `Bench:` practice): the total nodes of
`python -m search.bench` say which tree the alpha-beta search searches."""

from __future__ import annotations

from search.bench import run_bench

# The total nodes of the default bench (search/bench.py's BENCH_POSITIONS at DEFAULT_DEPTH, one
# thread, a fresh 16 MB table per position).  A change that alters the searched tree must update
# this number in the same commit, with its evidence: the SPRT of that change in the experiments
# ledger.  A change that is not meant to alter the tree (a refactor, a speed-up, deleting a
# technique that was switched off) must leave it as it is.
BENCH_SIGNATURE = 1494765


def test_bench_signature() -> None:
    lines: list[str] = []
    nodes, _ = run_bench(out=lines.append)
    assert nodes == BENCH_SIGNATURE, (
        f"bench: {nodes} nodes, the signature is {BENCH_SIGNATURE}: this change alters the searched tree; "
        "if it should, update BENCH_SIGNATURE with its SPRT in the ledger")
    assert f"Nodes searched  : {BENCH_SIGNATURE}" in lines     # what `python -m search.bench` prints


# The same bench with the shipped net (eval/nets/kestrel-2.nnue): a new net or a change to the
# inference that alters a score changes it, so it is pinned alike, with its SPRT in the ledger.
NNUE_BENCH_SIGNATURE = 1840007


def test_nnue_bench_signature() -> None:
    from eval.networks import builtin_network
    nodes, _ = run_bench(out=lambda line: None, network=builtin_network())
    assert nodes == NNUE_BENCH_SIGNATURE, (
        f"bench with the built-in net: {nodes} nodes, the signature is {NNUE_BENCH_SIGNATURE}: the net or its "
        "inference changed; if it should, update NNUE_BENCH_SIGNATURE with the net's SPRT in the ledger")
