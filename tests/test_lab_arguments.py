"""The lab's commands check their arguments and files before any work (tools/arguments.py).

Each case runs the real command and asserts what a user sees: exit status 2, one line on stderr
naming the problem, no traceback, and no work done.  Most call the command's ``main`` in this
process (``run_here``: the refusal is the same, without a new interpreter); a FIFO as an input
would block a reader forever, so those cases run ``python -m tools.<name>`` in a subprocess whose
timeout turns a hang into a failure (``run_tool``).
"""

from __future__ import annotations

import argparse
import os
import random
import struct
import subprocess
from collections.abc import Callable
from functools import partial
from pathlib import Path

import chess
import numpy as np
import pytest
import tool_runs

from eval.networks import load_network
from eval.nnue_file import write_net
from tools.arguments import creatable_folder, finite_float, int_range, readable_file, writable_output
from tools.nnue_data import RECORD_SIZE, RESULT_DRAW, first_bad_record, pack, read_records
from tools.nnue_train import MAX_SCALE, FloatNet, quantise

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system (Windows)")


# A refusal comes before any work: a minute is ample, and a hang (a FIFO read) fails the test.
run_tool = partial(tool_runs.run_tool, timeout=60)
run_here = tool_runs.run_tool_here


def refused(result: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """The one-line message of a command that refused its arguments with status 2."""
    message = result.stderr.strip()
    assert result.returncode == 2, result.stdout + result.stderr
    assert "\n" not in message and "Traceback" not in message, message
    for fragment in fragments:
        assert fragment in message, message
    return message


# ---------------------------------------------------------------- files and records

def walk_records(count: int, seed: int) -> bytes:
    """`count` valid records: the positions of random games, with random scores and results."""
    rng = random.Random(seed)
    board = chess.Board()
    records = []
    while len(records) < count:
        if board.is_game_over() or board.ply() > 80:
            board = chess.Board()
        board.push(rng.choice(list(board.legal_moves)))
        records.append(pack(board.fen(), rng.randint(-600, 600), rng.randint(0, 2)))
    return b"".join(records)


@pytest.fixture(scope="module")
def kpos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lab") / "good.kpos"
    path.write_bytes(walk_records(200, seed=5))
    return path


def record_with_pieces(count: int) -> bytes:
    """A record whose occupancy has `count` squares set (white pawns, as far as the codes go)."""
    occupied = (1 << count) - 1
    return struct.pack("<Q", occupied) + bytes(16) + struct.pack("<hBBBBH", 0, RESULT_DRAW, 0, 64, 0, 1)


def bad_piece_code() -> bytes:
    record = bytearray(pack("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 0, RESULT_DRAW))
    record[8] = 0xEE          # code 14: no such piece
    return bytes(record)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


# ---------------------------------------------------------------- the trainer

def test_the_trainer_refuses_an_output_it_cannot_create_before_training(kpos: Path, tmp_path: Path) -> None:
    result = run_here("nnue_train", kpos, "--out", tmp_path / "no-such-folder" / "net.nnue", "--epochs", "1")
    refused(result, "argument --out", "no-such-folder", "does not exist")
    assert result.stdout == ""                                  # no epoch was trained
    refused(run_here("nnue_train", kpos, "--out", tmp_path, "--epochs", "1"), "--out", "is a folder")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    refused(run_here("nnue_train", kpos, "--out", tmp_path / "n.nnue", "--checkpoint-dir", blocker / "sub"),
            "--checkpoint-dir", "is not a folder")


@pytest.mark.parametrize(("option", "value", "fragment"), [
    ("--scale", "0", "out of range"),
    ("--scale", str(MAX_SCALE + 1), f"from 1 to {MAX_SCALE}"),
    ("--lr", "nan", "not a finite number"),
    ("--lr", "0", "above 0"),
    ("--lambda", "1.5", "at most 1"),
    ("--hidden", "17", "multiple of 16"),
    ("--output-buckets", "9", "1..8"),
    ("--output-buckets", "0", "of 1 or more"),
    ("--batch", "0", "of 1 or more"),
    ("--threads", "0", "from 1 to"),
    ("--seed", "-1", "of 0 or more"),
    ("--val-fraction", "1", "below 1"),
    ("--epochs", "ten", "not a whole number"),
])
def test_the_trainer_refuses_nonsense_numbers(kpos: Path, tmp_path: Path, option: str, value: str,
                                              fragment: str) -> None:
    result = run_here("nnue_train", kpos, "--out", tmp_path / "n.nnue", option, value)
    refused(result, f"argument {option}", fragment)
    assert not (tmp_path / "n.nnue").exists() and not (tmp_path / "n.nnue.checkpoints").exists()


@needs_fifo
def test_the_trainer_refuses_inputs_that_are_not_files_of_records(tmp_path: Path, fifo: Path, kpos: Path) -> None:
    out = tmp_path / "n.nnue"
    refused(run_tool("nnue_train", fifo, "--out", out), str(fifo), "not a regular file")
    refused(run_here("nnue_train", tmp_path, "--out", out), "is a folder")
    refused(run_here("nnue_train", tmp_path / "missing.kpos", "--out", out), "no such file")
    truncated = tmp_path / "truncated.kpos"
    truncated.write_bytes(kpos.read_bytes()[:-5])
    refused(run_here("nnue_train", truncated, "--out", out), "not a whole number of 32-byte records")
    refused(run_tool("nnue_train", kpos, "--val", fifo, "--out", out), "argument --val", "not a regular file")
    refused(run_here("nnue_train", kpos, "--resume", kpos, "--out", out), "not a checkpoint of this trainer")


@pytest.mark.parametrize(("bad", "fragment"), [
    (record_with_pieces(33), "33 occupied squares, more than the 32"),
    (bad_piece_code(), "bad piece code 14"),
    (pack(chess.STARTING_FEN, 0, RESULT_DRAW)[:26] + b"\x07" + pack(chess.STARTING_FEN, 0, RESULT_DRAW)[27:],
     "result 7"),
])
def test_the_trainer_checks_every_record_before_training(kpos: Path, tmp_path: Path, bad: bytes,
                                                         fragment: str) -> None:
    data = tmp_path / "bad.kpos"
    data.write_bytes(kpos.read_bytes() + bad)
    result = run_here("nnue_train", data, "--out", tmp_path / "n.nnue", "--epochs", "1", "--hidden", "16")
    refused(result, f"{data}: record 200: {fragment}")
    assert result.stdout == "" and not (tmp_path / "n.nnue").exists()


def test_the_trainers_scale_bound_is_the_engines(tmp_path: Path) -> None:
    """--scale accepts exactly the scales whose nets the engine loads."""
    net = FloatNet.initial(16, np.random.default_rng(1))
    write_net(tmp_path / "top.nnue", quantise(net, MAX_SCALE))
    assert load_network(tmp_path / "top.nnue")[0].scale == MAX_SCALE
    with pytest.raises(ValueError, match="scale"):
        write_net(tmp_path / "over.nnue", quantise(net, MAX_SCALE + 1))
    assert not (tmp_path / "over.nnue").exists()


def test_without_numpy_the_trainer_still_helps_and_says_how_to_install_it(kpos: Path, tmp_path: Path) -> None:
    # A numpy package that fails to import, first on the path: as if numpy were not installed.
    hidden = tmp_path / "hide-numpy"
    (hidden / "numpy").mkdir(parents=True)
    (hidden / "numpy" / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'numpy'\")\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hidden), os.environ.get("PYTHONPATH", "")])}
    shown = run_tool("nnue_train", "--help", env=env)
    assert shown.returncode == 0 and "python -m tools.nnue_train" in shown.stdout, shown.stderr
    refused(run_tool("nnue_train", kpos, "--out", tmp_path / "n.nnue", env=env), "pip install '.[nnue]'")
    refused(run_tool("nnue_train", kpos, "--scale", "0", env=env), "--scale")   # the arguments come first


# ---------------------------------------------------------------- the record reader and the comparison

def test_a_record_with_more_than_32_pieces_is_an_error_naming_it(kpos: Path, tmp_path: Path) -> None:
    data = tmp_path / "crowded.kpos"
    data.write_bytes(kpos.read_bytes()[:RECORD_SIZE] + record_with_pieces(40))
    with pytest.raises(ValueError, match="record 1: 40 occupied squares"):
        list(read_records(data))
    shown = run_here("nnue_data", data)
    refused(shown, f"{data}: record 1: 40 occupied squares")
    assert len(shown.stdout.splitlines()) == 1                   # the good record before it was printed
    compared = run_here("nnue_compare", data, "--every", "1")
    refused(compared, "record 1: 40 occupied squares")
    refused(run_here("nnue_data", kpos, "--limit", "-1"), "--limit")


@needs_fifo
def test_the_comparison_refuses_a_net_that_is_not_a_file(kpos: Path, fifo: Path) -> None:
    refused(run_tool("nnue_compare", kpos, fifo), str(fifo), "not a regular file")
    refused(run_here("nnue_compare", kpos, "--scale", "0"), "argument --scale", "above 0")
    refused(run_here("nnue_compare", kpos, "--every", "0"), "argument --every")


def test_first_bad_record_finds_the_first_of_each_kind(kpos: Path) -> None:
    good = np.frombuffer(kpos.read_bytes(), dtype=np.uint8).reshape(-1, RECORD_SIZE)
    assert first_bad_record(good) is None
    for bad, fragment in ((record_with_pieces(33), "33 occupied"), (bad_piece_code(), "bad piece code 14")):
        rows = np.concatenate([good[:7], np.frombuffer(bad, dtype=np.uint8).reshape(1, -1), good[7:]])
        found = first_bad_record(rows)
        assert found is not None and found[0] == 7 and fragment in found[1]
    # 32 pieces is a full record, not an error.
    assert first_bad_record(np.frombuffer(record_with_pieces(32), dtype=np.uint8).reshape(1, -1)) is None


# ---------------------------------------------------------------- the other tools

@pytest.fixture(scope="module")
def pgn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pgn") / "games.pgn"
    path.write_text('[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n')
    return path


Case = Callable[[Path, Path], list[str | Path]]

CASES: list[tuple[str, Case, tuple[str, ...]]] = [
    ("texel", lambda tmp, pgn: [pgn, "--out", tmp / "no" / "w.py"], ("argument --out", "does not exist")),
    ("texel", lambda tmp, pgn: [pgn, "--rate", "inf"], ("argument --rate", "not a finite number")),
    ("texel", lambda tmp, pgn: [tmp, "--out", tmp / "w.py"], ("argument data", "is a folder")),
    ("tune_data", lambda tmp, pgn: ["pgn", tmp, "--out", tmp / "d.epd"], ("argument files", "is a folder")),
    ("tune_data", lambda tmp, pgn: ["pgn", pgn, "--out", tmp / "no" / "d.epd"], ("argument --out",)),
    ("tune_data", lambda tmp, pgn: ["selfplay", "--games", "0", "--out", tmp / "d.epd"], ("argument --games",)),
    ("tune_data", lambda tmp, pgn: ["selfplay", "--book", pgn, "--out", tmp / "d.epd"],
     ("games.pgn:1: not a position", "--book")),
    ("spsa", lambda tmp, pgn: ["--params", "rfp_margin", "--gain", "nan", "--state", tmp / "s.json"],
     ("argument --gain",)),
    ("spsa", lambda tmp, pgn: ["--params", "rfp_margin", "--out", tmp / "no" / "t.json", "--state", tmp / "s.json"],
     ("argument --out", "does not exist")),
    ("spsa", lambda tmp, pgn: ["--params", "rfp_margin", "--engine", "no-such-engine-kestrel", "--state",
                               tmp / "s.json", "--out", tmp / "t.json"], ("no such program 'no-such-engine-kestrel'",)),
    ("wdl_fit", lambda tmp, pgn: [tmp], ("is a folder",)),
    ("wdl_fit", lambda tmp, pgn: [tmp / "missing.pgn"], ("no such file",)),
    ("policy_fit", lambda tmp, pgn: [pgn, "--depth", "0"], ("argument --depth", "from 1 to")),
    ("policy_fit", lambda tmp, pgn: [tmp / "missing.pgn"], ("no such file",)),
    ("tactics", lambda tmp, pgn: [pgn, "--movetime", "10"], ("games.pgn:1: not an EPD position",)),
    ("tactics", lambda tmp, pgn: [pgn, "--hash", "0"], ("argument --hash",)),
]


@pytest.mark.parametrize(("tool", "case", "fragments"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_tool_refuses_bad_arguments_in_one_line(tmp_path: Path, pgn: Path, tool: str, case: Case,
                                                     fragments: tuple[str, ...]) -> None:
    refused(run_here(tool, *case(tmp_path, pgn)), *fragments)
    assert sorted(path.name for path in tmp_path.iterdir()) == []     # nothing written


@needs_fifo
@pytest.mark.parametrize("tool", ["texel", "wdl_fit", "policy_fit", "tactics"])
def test_no_tool_opens_a_fifo(fifo: Path, tool: str) -> None:
    refused(run_tool(tool, fifo), "not a regular file")


# ---------------------------------------------------------------- the checks themselves

def test_the_argument_checks() -> None:
    check = finite_float(0.0, 1.0, low_open=True)
    assert check("1") == 1.0 and check("0.5") == 0.5
    for text in ("0", "1.01", "nan", "-inf", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            check(text)
    assert int_range(1, 3)("3") == 3
    for text in ("0", "4", "1.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            int_range(1, 3)(text)


def test_the_path_checks(tmp_path: Path) -> None:
    existing = tmp_path / "f.txt"
    existing.write_text("x")
    assert readable_file(str(existing)) == existing
    assert writable_output(str(existing)) == existing
    assert writable_output(str(tmp_path / "new.txt")) == tmp_path / "new.txt"
    assert creatable_folder(str(tmp_path / "a" / "b")) == tmp_path / "a" / "b"
    with pytest.raises(argparse.ArgumentTypeError, match="not a folder"):
        creatable_folder(str(existing / "sub"))
    with pytest.raises(argparse.ArgumentTypeError, match="empty path"):
        writable_output("")
    assert not (tmp_path / "a").exists() and not (tmp_path / "new.txt").exists()   # checks create nothing
