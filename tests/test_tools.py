"""The lab (tools/): every tool runs as `python -m tools.<name>`; those no other test covers play a short run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_DATA, shared_data_path

REPO_ROOT = Path(__file__).resolve().parent.parent
# The commands: every module that runs as a script (the others, such as arguments.py, are libraries).
TOOLS = sorted(path.stem for path in (REPO_ROOT / "tools").glob("*.py")
               if 'if __name__ == "__main__":' in path.read_text(encoding="utf-8"))


def run_tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", f"tools.{name}", *args], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_lab_holds_the_tools() -> None:
    expected = {"paired", "policy_fit", "spsa", "tablebase_probes", "tactics", "texel", "tune_data", "wdl_fit"}
    assert expected <= set(TOOLS)


@pytest.mark.parametrize("name", TOOLS)
def test_each_tool_runs_as_a_module_and_names_its_command(name: str) -> None:
    result = run_tool(name, "--help")
    assert result.returncode == 0, result.stderr
    assert f"python -m tools.{name}" in result.stdout + result.stderr


def test_tactics_solves_a_suite() -> None:
    result = run_tool("tactics", str(shared_data_path("bk.epd")), "--movetime", "20", "--limit", "2")
    assert result.returncode == 0, result.stderr
    assert "bk.epd: solved " in result.stdout and "/2 at 20 ms per position" in result.stdout


def test_tablebase_probes_compares_searches_with_and_without_tables() -> None:
    result = run_tool("tablebase_probes", "3", str(SHARED_DATA / "syzygy"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("depth 3, tables up to ") and "total: without tables" in result.stdout


def test_wdl_fit_keeps_one_players_moves_with_player(tmp_path: Path) -> None:
    from tools.wdl_fit import samples_from_pgn
    # Nine moves each (the first 8 are left out), every one scored: White +1.00, Black -2.00.
    moves = "Nf3 Nf6 Ng1 Ng8 " * 4 + "Nf3 Nf6"
    body = " ".join(f"{i // 2 + 1}. {san} {{+1.00/5 0.1s}}" if i % 2 == 0 else f"{san} {{-2.00/5 0.1s}}"
                    for i, san in enumerate(moves.split()))
    pgn = tmp_path / "games.pgn"
    pgn.write_text(f'[White "Net"]\n[Black "Weighted"]\n[Result "1-0"]\n\n{body} 1-0\n')
    everyone = samples_from_pgn([str(pgn)])
    net = samples_from_pgn([str(pgn)], player="Net")
    assert sum(everyone.values()) == 2 and sum(net.values()) == 1
    assert set(net) == {(100, 78, 1)}                   # the winner's move at +1.00, full material
    assert sum(samples_from_pgn([str(pgn)], player="Nobody").values()) == 0
