"""The lab (tools/): every tool runs as `python -m tools.<name>`; those no other test covers play a short run."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
import tool_runs
from conftest import SHARED_DATA, shared_data_path
from tool_runs import REPO_ROOT

# The commands: every module that runs as a script (the others, such as arguments.py, are libraries).
TOOLS = sorted(path.stem for path in (REPO_ROOT / "tools").glob("*.py")
               if 'if __name__ == "__main__":' in path.read_text(encoding="utf-8"))


run_tool = partial(tool_runs.run_tool, timeout=120)


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


def test_thread_soak_runs_its_rounds_and_refuses_a_bad_thread_count() -> None:
    result = run_tool("thread_soak", "--rounds", "1", "--threads", "3,1", "--wait", "60")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-2:] == ["round 1 passed", "all 1 passed (MCTS, Threads 3,1)"]
    result = run_tool("thread_soak", "--threads", "0")
    assert result.returncode == 2 and "--threads: each value must be from 1 to 256" in result.stderr


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


def test_wdl_fit_reads_the_generators_game_records(tmp_path: Path) -> None:
    from tools.game_records import MATE_SCORE, pack_game
    from tools.nnue_data import RESULT_LOSS, RESULT_WIN
    from tools.wdl_fit import samples_from_game_records
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 4 + ["g1f3", "g8f6", "b1c3"]   # 19 plies, 16 left out
    scores = [50] * 16 + [123, -80, MATE_SCORE - 9]                           # White +1.23, Black -0.80, a mate
    won = tmp_path / "won.kgame"
    won.write_bytes(pack_game(start, RESULT_WIN, shuffle, scores))
    # White won: its move at +1.23 (rounded to 120) counts as a win, Black's at -0.80 as a loss;
    # the opening's plies and the mate score are left out.
    assert samples_from_game_records([str(won)]) == {(120, 78, 1): 1, (-80, 78, -1): 1}
    lost = tmp_path / "lost.kgame"
    lost.write_bytes(pack_game(start, RESULT_LOSS, shuffle, scores) * 3)
    both = samples_from_game_records([str(won), str(lost)])
    assert both == {(120, 78, 1): 1, (-80, 78, -1): 1, (120, 78, -1): 3, (-80, 78, 1): 3}
    # --max-games takes the files in turn: two games are one of each file.
    assert samples_from_game_records([str(won), str(lost)], max_games=2) == {
        (120, 78, 1): 1, (-80, 78, -1): 1, (120, 78, -1): 1, (-80, 78, 1): 1}


def test_wdl_fit_fits_game_records_from_the_command_line(tmp_path: Path) -> None:
    from tools.game_records import pack_game
    from tools.nnue_data import RESULT_DRAW, RESULT_WIN
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 40
    records = tmp_path / "games.kgame"
    # White scores +3.00 and wins, or +0.00 and draws: the fit must see a higher win rate at +3.00.
    records.write_bytes(pack_game(start, RESULT_WIN, shuffle, [300, -300] * 80)
                        + pack_game(start, RESULT_DRAW, shuffle, [0, 0] * 80))
    result = run_tool("wdl_fit", str(records))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("samples: 288 scored moves")
    band = next(line.split() for line in result.stdout.splitlines() if line.startswith("[  300, 2000)"))
    assert band[3:5] == ["72", "100.0/"]              # White's 72 moves at +3.00 all won
    bad = tmp_path / "bad.kgame"
    bad.write_bytes(b"not a game record")
    result = run_tool("wdl_fit", str(bad))
    assert result.returncode != 0 and "kgame" in result.stderr
