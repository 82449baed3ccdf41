"""The SPSA tuner of the search parameters: it plays real games through the runner."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from search.param_table import SEARCH_PARAMS
from tools.spsa import SpsaState, engine_params, main

ENGINE = f"{sys.executable} -m uci_engine"


def test_engine_params_are_rounded_and_clamped() -> None:
    state = SpsaState(names=["rfp_margin", "lmr_base"], theta={})
    text = engine_params(state, {"rfp_margin": 1e9, "lmr_base": 0.123456})
    assert text == f"rfp_margin={int(SEARCH_PARAMS['rfp_margin'].high)},lmr_base=0.1235"


def test_bad_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--params", "no_such_margin", "--state", str(tmp_path / "s.json")]) == 2
    assert "unknown parameter" in capsys.readouterr().err
    assert main(["--params", "rfp_margin", "--resume", "--state", str(tmp_path / "none.json")]) == 2
    assert main(["--params", "rfp_margin", "--concurrency", "0", "--state", str(tmp_path / "s.json")]) == 2
    assert "--concurrency" in capsys.readouterr().err


@pytest.mark.slow
def test_iterations_play_games_save_state_and_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     shared_data: Callable[[str], Path]) -> None:
    state_file, out = tmp_path / "state.json", tmp_path / "tuned.json"
    common = ["--params", "rfp_margin,futility_base", "--pairs", "1", "--concurrency", "2", "--each", "nodes=400",
              "--engine", ENGINE, "--book", str(shared_data("openings/2moves_v1.epd")),
              "--state", str(state_file), "--out", str(out), "--gain", "50"]
    assert main([*common, "--iterations", "2"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("games 2 ") == 2          # each iteration played its pair to the end
    saved = json.loads(state_file.read_text())
    assert saved["iteration"] == 2 and len(saved["history"]) == 2
    tuned = json.loads(out.read_text())
    for name, value in tuned.items():
        assert SEARCH_PARAMS[name].low <= value <= SEARCH_PARAMS[name].high
    # Resuming to 3 iterations plays exactly one more.
    assert main([*common, "--iterations", "3", "--resume"]) == 0
    assert capsys.readouterr().out.count("games 2 ") == 1
    assert json.loads(state_file.read_text())["iteration"] == 3


def test_runner_options_reach_the_runner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Every game adjudicated a draw after one move: the engines score alike, so nothing moves.
    state_file, out = tmp_path / "state.json", tmp_path / "tuned.json"
    common = ["--params", "rfp_margin,futility_base", "--pairs", "1", "--each", "nodes=400", "--engine", ENGINE,
              "--state", str(state_file), "--out", str(out), "--gain", "50", "--iterations", "2"]
    assert main([*common, "--runner-options", "-maxmoves 1"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("games 2  plus scored 0.500") == 2, printed
    defaults = {name: SEARCH_PARAMS[name].default for name in ("rfp_margin", "futility_base")}
    assert json.loads(out.read_text()) == defaults
    # An option the runner refuses stops the run with the runner's word.
    assert main([*common, "--runner-options", "-maxmoves many"]) == 1
    assert "the runner failed" in capsys.readouterr().err
    assert main([*common, "--runner-options", "-draw 'movenumber=40"]) == 2
    assert "quote it as a shell would" in capsys.readouterr().err
