"""`python -m search.bench --nnue NET` compares the weighted evaluation's speed with a net's; NET is
``builtin`` or a net file, nothing else (random nets are test scaffolding, tests/net_files.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from net_files import constant_net_file

from search.bench import main as bench_main


def test_a_net_file_is_benched_beside_the_weighted_evaluation(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = constant_net_file(tmp_path / "constant.nnue")
    assert bench_main(["2", "--nnue", str(path)]) == 0
    out = capsys.readouterr().out
    assert "== the weighted evaluation" in out and "== NNUE: a 16-wide network" in out
    assert "NNUE nodes/second:" in out


@pytest.mark.parametrize("value", ["random", "random:64", ""])
def test_anything_but_a_net_file_or_builtin_is_refused(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["2", "--nnue", value] if value else ["2", "--nnue"]
    assert bench_main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("bench: ")
