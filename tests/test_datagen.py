"""The NNUE data generator and its record format (tools/datagen.py, tools/nnue_data.py)."""

from __future__ import annotations

import os
import random
import signal
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest

from search.board.position import Position
from tools import datagen
from tools.nnue_data import RECORD_SIZE, RESULT_DRAW, RESULT_LOSS, RESULT_WIN, load_array, pack, read_records, unpack

FAST = datagen.Settings(soft_nodes=300, hard_nodes=3000, hash_mb=1, random_plies=6, max_plies=120)


def random_fens(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    fens = []
    while len(fens) < count:
        position = Position()
        for _ in range(rng.randint(0, 60)):
            moves = position.legal_moves()
            if not moves:
                break
            position.push(rng.choice(moves))
            fens.append(position.fen())
    return fens[:count]


def test_records_round_trip_every_field() -> None:
    fens = random_fens(300, seed=3) + ["4k3/8/8/3pP3/8/8/8/4K3 w - d6 7 41", "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 99 300"]
    for index, fen in enumerate(fens):
        score, result = (index * 37) % 2000 - 1000, index % 3
        record = unpack(pack(fen, score, result))
        assert (record.fen, record.score, record.result) == (fen, score, result)


def test_records_refuse_what_they_cannot_hold() -> None:
    with pytest.raises(ValueError):
        pack("not a fen", 0, RESULT_DRAW)
    with pytest.raises(ValueError):
        pack(chess.STARTING_FEN, 0, 3)
    bad = bytearray(pack(chess.STARTING_FEN, 0, RESULT_DRAW))
    bad[8] = 0xFF          # piece code 15
    with pytest.raises(ValueError):
        unpack(bytes(bad))


def test_numpy_view_reads_the_same_fields(tmp_path: Path) -> None:
    path = tmp_path / "a.kpos"
    fens = random_fens(20, seed=5)
    path.write_bytes(b"".join(pack(fen, i - 10, i % 3) for i, fen in enumerate(fens)))
    array = load_array(str(path))
    assert list(array["score"]) == [i - 10 for i in range(20)]
    assert list(array["result"]) == [i % 3 for i in range(20)]
    assert [r.fen for r in read_records(str(path))] == fens


def test_a_game_keeps_quiet_scored_positions_with_its_result() -> None:
    game = datagen.play_game(0, seed=11, settings=FAST)
    assert game.positions == len(game.data) // RECORD_SIZE > 10
    records = [unpack(game.data[i:i + RECORD_SIZE]) for i in range(0, len(game.data), RECORD_SIZE)]
    white_results = set()
    for record in records:
        board = chess.Board(record.fen)
        assert board.is_valid() and not board.is_check()
        assert abs(record.score) < datagen.MATE_BOUND
        white_results.add(record.result if board.turn == chess.WHITE else 2 - record.result)
    # One game, one result: every record agrees once turned to White's view.
    assert len(white_results) == 1
    expected = {"1-0": RESULT_WIN, "0-1": RESULT_LOSS, "1/2-1/2": RESULT_DRAW}[game.result]
    assert white_results == {expected}


def test_a_game_is_a_function_of_its_number() -> None:
    first = datagen.play_game(4, seed=2, settings=FAST)
    again = datagen.play_game(4, seed=2, settings=FAST)
    other = datagen.play_game(5, seed=2, settings=FAST)
    assert first.data == again.data
    assert first.data != other.data


def test_a_game_can_be_played_with_a_net(tmp_path: Path) -> None:
    from dataclasses import replace

    from net_files import constant_net_file
    net = constant_net_file(tmp_path / "constant.nnue", centipawns=50)
    game = datagen.play_game(3, seed=7, settings=replace(FAST, eval_file=str(net)))
    scores = {unpack(game.data[i:i + RECORD_SIZE]).score for i in range(0, len(game.data), RECORD_SIZE)}
    # A net that calls every position +50 for the side to move: every search says +-50 (or a draw).
    assert scores and scores <= {-50, 0, 50}
    # The next game without the net is the weighted evaluation's again.
    weighted = datagen.play_game(3, seed=7, settings=FAST)
    assert weighted.data != game.data and weighted.data == datagen.play_game(3, seed=7, settings=FAST).data


def test_a_bad_net_file_is_refused_before_any_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.nnue"
    bad.write_bytes(b"not a net")
    with pytest.raises(SystemExit):
        datagen.main(["generate", "--out", str(tmp_path / "d"), "--positions", "10", "--eval-file", str(bad)])
    assert "--eval-file" in capsys.readouterr().err and not (tmp_path / "d").exists()


def test_best_moves_that_capture_are_recognised() -> None:
    position = Position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    assert datagen._is_capture(position, "e5d6")       # en passant
    assert not datagen._is_capture(position, "e5e6")
    position = Position("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 2")
    assert datagen._is_capture(position, "e4d5")
    assert not datagen._is_capture(position, "e1d1")


def fake_games(records_per_game: int) -> datagen.Callable[..., Iterator[datagen.GameRecords]]:
    """A game source that numbers its games as the real ones are numbered."""
    def source(first: int, seed: int, settings: datagen.Settings) -> Iterator[datagen.GameRecords]:
        index = first
        while True:
            fen = random_fens(1, seed=index)[0]
            data = pack(fen, index, RESULT_DRAW) * records_per_game
            yield datagen.GameRecords(index, data, records_per_game, 40, "1/2-1/2", f"w{index % 2}")
            index += 1
    return source


def test_generation_stops_at_its_target_and_resumes_with_new_games(tmp_path: Path) -> None:
    out = str(tmp_path / "data")
    held = datagen.generate(out, 25, FAST, seed=1, games=fake_games(10), progress_every=0)
    assert held == 30
    assert sorted(os.listdir(out)) == ["datagen.json", "w0.kpos", "w1.kpos"]
    # A coordinator killed inside a write leaves a partial record: it is cut off.
    with open(os.path.join(out, "w0.kpos"), "ab") as handle:
        handle.write(b"\x01" * 7)
    held = datagen.generate(out, 60, FAST, seed=1, games=fake_games(10), progress_every=0)
    assert held == 60
    scores = [record.score for name in ("w0.kpos", "w1.kpos") for record in read_records(os.path.join(out, name))]
    assert os.path.getsize(os.path.join(out, "w0.kpos")) % RECORD_SIZE == 0
    # Games 0..5 and then 3 more: no game number played twice.
    assert sorted(set(scores)) == list(range(6))
    assert len(scores) == 60


def test_merge_drops_duplicate_positions_and_keeps_the_first(tmp_path: Path) -> None:
    fens = random_fens(50, seed=8)
    a, b = tmp_path / "a.kpos", tmp_path / "b.kpos"
    a.write_bytes(b"".join(pack(fen, 1, RESULT_WIN) for fen in fens[:30]))
    b.write_bytes(b"".join(pack(fen, 2, RESULT_LOSS) for fen in fens[20:]))
    out = tmp_path / "all.kpos"
    read, added, written = datagen.merge([str(a), str(b)], str(out), dedup=True, shuffle=True, seed=1)
    distinct = len(set(" ".join(fen.split()[:4]) for fen in fens))
    assert (read, added, written) == (60, 0, distinct)
    records = list(read_records(str(out)))
    assert len({r.fen for r in records}) == distinct
    # The first file's label wins for the positions both files hold.
    assert all(r.score == 1 for r in records if r.fen in fens[20:30] and r.fen not in fens[30:])


def test_local_workers_write_their_own_shards(tmp_path: Path) -> None:
    out = str(tmp_path / "data")
    held = datagen.generate(out, 150, FAST, seed=3, workers=2, progress_every=0)
    shards = [name for name in os.listdir(out) if name.endswith(".kpos")]
    assert held >= 150 and 1 <= len(shards) <= 2
    assert sum(os.path.getsize(os.path.join(out, name)) for name in shards) == held * RECORD_SIZE


def _dying_game(index: int, seed: int, settings: datagen.Settings) -> datagen.GameRecords:
    """Game 1's first try kills its worker process; the marker file says it already died once."""
    marker = os.environ["KESTREL_TEST_MARKER"]
    if index == 1 and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return datagen.GameRecords(index, pack(chess.STARTING_FEN, index, RESULT_DRAW), 1, 1, "1/2-1/2", "w")


def test_a_killed_worker_loses_only_its_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KESTREL_TEST_MARKER", str(tmp_path / "died"))
    monkeypatch.setattr(datagen, "play_game", _dying_game)
    games = datagen._local_games(1, 0, 1, FAST)
    indices = [next(games).index for _ in range(6)]
    games.close()
    assert (tmp_path / "died").exists()
    assert sorted(indices) == list(range(6))   # each game once: none lost, none played twice


def test_dask_workers_write_their_own_shards(tmp_path: Path) -> None:
    out = str(tmp_path / "data")
    held = datagen.generate(out, 60, FAST, seed=4, dask="local:1", progress_every=0)
    shards = [name for name in os.listdir(out) if name.endswith(".kpos")]
    assert held >= 60 and len(shards) == 1 and shards[0].startswith("dask-")
    records = list(read_records(os.path.join(out, shards[0])))
    assert len(records) == held and all(chess.Board(r.fen).is_valid() for r in records)


def test_sigterm_stops_a_background_run_cleanly(tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    import psutil
    out = tmp_path / "data"
    command = [sys.executable, "-m", "tools.datagen", "generate", "--out", str(out), "--positions", "10000000",
               "--workers", "2", "--soft-nodes", "300", "--hard-nodes", "3000", "--progress-every", "0.5"]
    # As nohup starts it: SIGINT ignored, so SIGTERM is the way to stop it.
    run = subprocess.Popen(command, cwd=Path(__file__).resolve().parent.parent, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(out.glob("*.kpos")):
        time.sleep(0.2)
    children = psutil.Process(run.pid).children(recursive=True)
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=30)
    assert run.returncode == 130, err
    assert "interrupted; run the same command again to go on" in err
    shards = list(out.glob("*.kpos"))
    assert shards and all(shard.stat().st_size % RECORD_SIZE == 0 for shard in shards)
    held = sum(shard.stat().st_size for shard in shards) // RECORD_SIZE
    manifest = (out / "datagen.json").read_text()
    assert f'"positions": {held}' in manifest
    gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, "worker processes outlived the run"


def test_nnue_compare_scores_the_weighted_evaluation_and_nets(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from net_files import constant_net_file

    from eval.api import evaluate
    from tools import nnue_compare
    fens = random_fens(60, seed=21)
    records = tmp_path / "val.kpos"
    # Scores equal to the weighted evaluation: its correlation with them is exactly 1.
    records.write_bytes(b"".join(pack(fen, evaluate(Position(fen)), RESULT_DRAW) for fen in fens))
    net = constant_net_file(tmp_path / "constant.nnue")
    assert nnue_compare.main([str(records), str(net), "--every", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"60 positions of {records}"
    in_band = sum(abs(evaluate(Position(fen))) < 200 for fen in fens)
    assert in_band >= 2 and lines[1].startswith(f"{in_band:,} of them within 200 cp")
    weighted, constant = lines[3].split(), lines[4].split()
    assert weighted[0] == "weighted" and float(weighted[1]) == pytest.approx(1.0)
    assert float(weighted[3]) == pytest.approx(1.0) and float(weighted[4]) == 0.0    # the band: exact
    assert constant[0] == str(net) and float(constant[1]) == 0.0     # a constant predicts nothing
    assert float(constant[3]) == 0.0 and float(constant[4]) > 0.0


def mirror_fen(fen: str) -> str:
    placement, turn, castling, ep, *rest = fen.split()
    ranks = ["".join(reversed(chess.Board(f"{placement} w - - 0 1").board_fen().split("/")[i]))
             for i in range(8)]
    ep = ep if ep == "-" else "abcdefgh"[7 - "abcdefgh".index(ep[0])] + ep[1]
    return " ".join(["/".join(ranks), turn, castling, ep, *rest])


def test_mirrored_records_are_the_positions_flipped_left_to_right() -> None:
    import numpy as np
    fens = random_fens(400, seed=31) + ["4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"]
    data = np.frombuffer(b"".join(pack(fen, i, i % 3) for i, fen in enumerate(fens)), dtype=np.uint8)
    records = data.reshape(-1, RECORD_SIZE)
    flipped = datagen.mirrored(records)
    without_castling = [(i, fen) for i, fen in enumerate(fens) if fen.split()[2] == "-"]
    assert len(flipped) == len(without_castling) > 50
    for (index, fen), row in zip(without_castling, flipped, strict=True):
        record = unpack(row.tobytes())
        assert record.fen == mirror_fen(fen) and (record.score, record.result) == (index, index % 3)
    assert (datagen.mirrored(flipped) == records[[i for i, _ in without_castling]]).all()
