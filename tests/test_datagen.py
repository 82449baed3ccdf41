"""The NNUE data generator and the training record format (tools/datagen.py, tools/nnue_data.py)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest
from conftest import REPO_ROOT, SHARED_DATA
from tool_runs import run_tool_here

from search.board.position import Position
from tools import datagen, game_records
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


def test_a_game_keeps_every_searched_position_with_its_result() -> None:
    game = datagen.play_game(0, seed=11, settings=FAST)
    [record] = list(game_records.iter_games(game.data))
    assert game.positions == len(record.moves) == len(record.scores) > 10
    expected = {"1-0": RESULT_WIN, "0-1": RESULT_LOSS, "1/2-1/2": RESULT_DRAW}[game.result]
    assert record.result == expected
    # The moves replay legally from the start position, and each searched position is kept.
    board = chess.Board(record.start_fen)
    for move in record.moves:
        assert chess.Move.from_uci(move) in board.legal_moves
        board.push_uci(move)
    samples = list(game_records.samples(record))
    assert len(samples) == len(record.moves)
    assert {s.result if chess.Board(s.fen).turn == chess.WHITE else 2 - s.result for s in samples} == {expected}


def test_a_game_is_a_function_of_its_number() -> None:
    first = datagen.play_game(4, seed=2, settings=FAST)
    again = datagen.play_game(4, seed=2, settings=FAST)
    other = datagen.play_game(5, seed=2, settings=FAST)
    assert first.data == again.data
    assert first.data != other.data


def test_openings_beyond_the_bound_are_dropped() -> None:
    from dataclasses import replace

    from search.limits import SearchLimits
    settings = replace(FAST, random_plies=12, opening_bound=40)
    searcher = datagen._searcher(settings)
    limits = SearchLimits(nodes=settings.hard_nodes, soft_nodes=settings.soft_nodes)

    class Recording:
        """The searcher, keeping the score of each search: a second search of a kept opening would
        meet a table filled since, and could score it otherwise."""
        def __init__(self) -> None:
            self.scores: list[tuple[object, tuple[str, int]]] = []

        def search(self, position: object, limits: object) -> object:
            result = searcher.search(position, limits)
            self.scores.append((position, result.score))
            return result

    recording = Recording()
    rng = random.Random(5)
    kept = [datagen._balanced_opening(rng, settings, recording, limits) for _ in range(6)]
    # Each kept opening is the last one searched when it was returned, and scored within the bound.
    scored = dict((id(position), score) for position, score in recording.scores)
    for position in kept:
        score = scored[id(position)]
        assert score[0] == "cp" and abs(score[1]) <= 40
    assert len(recording.scores) > len(kept)        # some openings were searched and dropped
    # Twelve random plies often leave a side lost: without the bound some openings would be.
    rng = random.Random(5)
    raw = [datagen._opening(rng, settings) for _ in range(30)]
    assert any(p is not None and abs(searcher.search(p, limits).score[1]) > 40 for p in raw)


def test_a_game_can_be_played_with_a_net(tmp_path: Path) -> None:
    from dataclasses import replace

    from net_files import constant_net_file
    net = constant_net_file(tmp_path / "constant.nnue", centipawns=50)
    settings = replace(FAST, eval_file=str(net))
    # Correction history would move the constant evaluation by what the searches find (draws).
    datagen._searcher(settings).configure(correction_history=False)
    game = datagen.play_game(3, seed=7, settings=settings)
    [record] = list(game_records.iter_games(game.data))
    scores = set(record.scores)
    # A net that calls every position +50 for the side to move: every search says +-50 (or a draw).
    assert scores and scores <= {-50, 0, 50}
    # The weighted evaluation and the built-in net play other games.
    weighted = datagen.play_game(3, seed=7, settings=replace(FAST, weighted=True))
    builtin = datagen.play_game(3, seed=7, settings=FAST)
    assert len({weighted.data, builtin.data, game.data}) == 3
    assert builtin.data == datagen.play_game(3, seed=7, settings=FAST).data


def test_a_bad_net_file_is_refused_before_any_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.nnue"
    bad.write_bytes(b"not a net")
    fifo = tmp_path / "fifo.nnue"
    os.mkfifo(fifo)
    for path in (bad, fifo, tmp_path):
        with pytest.raises(SystemExit) as stop:
            datagen.main(["generate", "--out", str(tmp_path / "d"), "--positions", "10", "--eval-file", str(path)])
        assert stop.value.code == 2 and "--eval-file" in capsys.readouterr().err


def _generate(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tools.datagen", *arguments], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=120, check=False)


def test_bad_inputs_are_refused_before_the_first_game(tmp_path: Path) -> None:
    book = tmp_path / "book.epd"
    book.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5;\nnot a position at all\n")
    blocked = tmp_path / "file"
    blocked.write_text("")
    cases = {
        ("--book", str(book)): "book.epd:2: not a position",
        ("--out", str(blocked / "sub")): "--out",
        ("--syzygy", str(tmp_path)): "--syzygy",
        ("--soft-nodes", "0"): "--soft-nodes",
        ("--nice", "40"): "--nice",
    }
    for extra, message in cases.items():
        arguments = {"--out": str(tmp_path / "d"), "--positions": "10"}
        arguments.update(dict(zip(extra[::2], extra[1::2], strict=True)))
        # In this process: a refusal needs no interpreter of its own (tests/tool_runs.py).
        result = run_tool_here("datagen", "generate", *[x for pair in arguments.items() for x in pair])
        assert result.returncode == 2 and message in result.stderr, (extra, result.stderr)
        assert "Traceback" not in result.stderr
        assert not (tmp_path / "d").exists() or not any((tmp_path / "d").glob("*.kgame"))


def fake_games(plies_per_game: int) -> datagen.Callable[..., Iterator[datagen.GameRecords]]:
    """A game source that numbers its games as the real ones are numbered: game i's scores are i."""
    def source(first: int, seed: int, settings: datagen.Settings) -> Iterator[datagen.GameRecords]:
        index = first
        while True:
            moves = ["g1f3", "g8f6", "f3g1", "f6g8"] * plies_per_game
            data = game_records.pack_game(chess.STARTING_FEN, RESULT_DRAW, moves[:plies_per_game],
                                          [index] * plies_per_game)
            yield datagen.GameRecords(index, data, plies_per_game, plies_per_game, "1/2-1/2", f"w{index % 2}")
            index += 1
    return source


def _scores(paths: list[str]) -> list[int]:
    return [score for path in paths for game in game_records.read_games(path) for score in game.scores]


def test_generation_stops_at_its_target_and_resumes_with_new_games(tmp_path: Path) -> None:
    out = str(tmp_path / "data")
    held = datagen.generate(out, 25, FAST, seed=1, games=fake_games(10), progress_every=0)
    assert held == 30
    assert sorted(os.listdir(out)) == ["datagen.json", "w0.kgame", "w1.kgame"]
    # A coordinator killed inside a write leaves a partial game: it is cut off.
    with open(os.path.join(out, "w0.kgame"), "ab") as handle:
        handle.write(game_records.pack_game(chess.STARTING_FEN, RESULT_WIN, ["e2e4"], [99])[:-3])
    held = datagen.generate(out, 60, FAST, seed=1, games=fake_games(10), progress_every=0)
    assert held == 60
    shards = [os.path.join(out, name) for name in ("w0.kgame", "w1.kgame")]
    scores = _scores(shards)
    assert all(game_records.scan(path)[2] == os.path.getsize(path) for path in shards)
    # Games 0..5: no game number played twice, and the cut game is gone.
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


def test_games_become_the_training_records_the_filters_keep(tmp_path: Path) -> None:
    out = str(tmp_path / "data")
    datagen.generate(out, 150, FAST, seed=3, workers=1, progress_every=0)
    [shard] = [os.path.join(out, name) for name in os.listdir(out) if name.endswith(".kgame")]
    games = list(game_records.read_games(shard))
    samples = [s for game in games for s in game_records.samples(game)]
    quiet = [s for s in samples if game_records.Filters().keeps(s)]
    assert 0 < len(quiet) < len(samples)
    every = tmp_path / "every.kpos"
    kept = tmp_path / "quiet.kpos"
    datagen.merge([shard], str(kept), dedup=False, shuffle=False, seed=1)
    datagen.merge([shard], str(every), dedup=False, shuffle=False, seed=1,
                  filters=game_records.Filters(keep_checks=True, keep_noisy=True))
    records = list(read_records(str(kept)))
    assert [(r.fen, r.score, r.result) for r in records] == [(s.fen, s.score, s.result) for s in quiet]
    for record in records:
        assert not chess.Board(record.fen).is_check()
    assert len(list(read_records(str(every)))) == sum(1 for s in samples if not s.flags & game_records.FLAG_MATE)
    summary = datagen.stats([shard])
    assert (summary["games"], summary["positions"]) == (len(games), len(samples))
    assert summary["white_wins"] + summary["draws"] + summary["black_wins"] == len(games)


def test_local_workers_write_their_own_shards(tmp_path: Path) -> None:
    out = str(tmp_path / "data")
    held = datagen.generate(out, 150, FAST, seed=3, workers=2, progress_every=0)
    shards = [os.path.join(out, name) for name in os.listdir(out) if name.endswith(".kgame")]
    assert held >= 150 and 1 <= len(shards) <= 2
    assert sum(game_records.scan(path)[1] for path in shards) == held
    assert not os.path.exists(os.path.join(out, datagen.PID_FILE))     # gone with the run


def test_a_local_worker_plays_the_games_play_game_plays(tmp_path: Path) -> None:
    """A local worker receives the settings once, at its start, and plays each game from its number
    and seed: its shard is, byte for byte, the games play_game makes here."""
    from dataclasses import asdict, replace
    book = ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1")
    settings = replace(FAST, book_lines=book)
    out = tmp_path / "data"
    datagen.generate(str(out), 150, settings, seed=6, workers=1, progress_every=0)
    [shard] = out.glob("*.kgame")
    games = game_records.scan(str(shard))[0]
    assert games >= 2
    assert shard.read_bytes() == b"".join(datagen.play_game(index, 6, settings).data for index in range(games))
    # The manifest names every setting but the book's lines.
    expected = asdict(settings)
    expected.pop("book_lines")
    assert json.loads((out / datagen.MANIFEST).read_text())["settings"] == expected


def test_the_bench_prints_the_digest_of_the_games_it_played(capsys: pytest.CaptureFixture[str]) -> None:
    """tools.datagen_bench plays the games a worker plays for the same numbers, seed and options: its
    digest is theirs, so equal digests before and after a change mean the same games."""
    import hashlib

    from tools import datagen_bench
    options = ["--soft-nodes", "300", "--hard-nodes", "3000", "--hash", "1", "--random-plies", "6",
               "--max-plies", "120"]
    assert datagen_bench.main(["--games", "2", "--first", "3", "--seed", "9", *options]) == 0
    out = capsys.readouterr().out
    expected = hashlib.sha256(b"".join(datagen.play_game(index, 9, FAST).data for index in (3, 4))).hexdigest()
    assert f"records sha256 {expected}" in out and "2 games (3..4, seed 9)" in out, out


def _dying_game(index: int, seed: int, settings: datagen.Settings) -> datagen.GameRecords:
    """Game 1's first try kills its worker process; the marker file says it already died once."""
    marker = os.environ["KESTREL_TEST_MARKER"]
    if index == 1 and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    data = game_records.pack_game(chess.STARTING_FEN, RESULT_DRAW, ["e2e4"], [index])
    return datagen.GameRecords(index, data, 1, 1, "1/2-1/2", "w")


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
    shards = [name for name in os.listdir(out) if name.endswith(".kgame")]
    assert held >= 60 and len(shards) == 1 and shards[0].startswith("dask-")
    games = list(game_records.read_games(os.path.join(out, shards[0])))
    assert sum(len(game.moves) for game in games) == held
    assert all(chess.Board(game.start_fen).is_valid() for game in games)


def _start_background_run(out: Path, own_group: bool = False) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tools.datagen", "generate", "--out", str(out), "--positions", "10000000",
               "--workers", "2", "--soft-nodes", "300", "--hard-nodes", "3000", "--progress-every", "0.5",
               "--weighted", "--nice", "5"]
    # As nohup starts it: SIGINT ignored, so SIGTERM is the way to stop it.
    run = subprocess.Popen(command, cwd=REPO_ROOT, stderr=subprocess.PIPE, text=True, start_new_session=own_group,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    # Each worker opens its own shard when it starts: with both there, the whole family is up.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(out.glob("*.kgame"))) < 2:
        time.sleep(0.2)
    return run


def _held(out: Path) -> int:
    return sum(game_records.scan(str(shard))[1] for shard in out.glob("*.kgame"))


def test_sigterm_stops_a_background_run_cleanly(tmp_path: Path) -> None:
    import psutil
    out = tmp_path / "data"
    run = _start_background_run(out)
    children = psutil.Process(run.pid).children(recursive=True)
    # --nice 5 lowers the run's priority by 5 from ours (capped at 19), its workers' too.
    assert children and all(child.nice() == min(19, os.nice(0) + 5) for child in children)
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=30)
    assert run.returncode == 130, err
    assert "interrupted; run the same command again to go on" in err
    shards = list(out.glob("*.kgame"))
    assert shards and all(game_records.scan(str(shard))[2] == shard.stat().st_size for shard in shards)
    manifest = (out / "datagen.json").read_text()
    assert f'"positions": {_held(out)}' in manifest
    gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, "worker processes outlived the run"


def test_sigterm_to_the_whole_process_group_stops_the_run_at_once(tmp_path: Path) -> None:
    """As `timeout`, a terminal's Ctrl-C or a service manager stop it: every process of the group gets
    the signal.  The workers leave the stop to the coordinator, which writes what it holds, kills them
    and exits: no traceback, no wait for the games in flight, whole games in every shard."""
    import psutil
    out = tmp_path / "data"
    run = _start_background_run(out, own_group=True)
    children = psutil.Process(run.pid).children(recursive=True)
    assert children
    os.killpg(run.pid, signal.SIGTERM)
    _, err = run.communicate(timeout=30)
    assert run.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    shards = list(out.glob("*.kgame"))
    assert shards and all(game_records.scan(str(shard))[2] == shard.stat().st_size for shard in shards)
    assert f'"positions": {_held(out)}' in (out / "datagen.json").read_text()
    gone, alive = psutil.wait_procs(children, timeout=10)
    assert not alive, "worker processes outlived the run"


def test_paused_stops_the_generator_while_a_command_runs(tmp_path: Path) -> None:
    import psutil
    out = tmp_path / "data"
    run = _start_background_run(out)
    family = [psutil.Process(run.pid), *psutil.Process(run.pid).children(recursive=True)]
    try:
        # The command reports the generator's state from inside the pause, then exits 3.
        # (A stop takes effect when a process next runs: on a loaded machine it waits up to 10 s for it.)
        probe = ("import psutil, sys, time; family = [psutil.Process(p) for p in map(int, sys.argv[1:])]\n"
                 "deadline = time.monotonic() + 10\n"
                 "while time.monotonic() < deadline and any(p.status() != 'stopped' for p in family):\n"
                 "    time.sleep(0.05)\n"
                 "print(sorted({p.status() for p in family})); sys.exit(3)")
        result = _generate("paused", str(out), "--", sys.executable, "-c", probe, *[str(p.pid) for p in family])
        assert result.returncode == 3, result.stderr
        assert result.stdout.strip() == "['stopped']"
        assert f"paused {len(family)} generator process(es)" in result.stderr
        # Resumed afterwards: it goes on writing games.
        assert all(p.status() != psutil.STATUS_STOPPED for p in family)
        before = _held(out)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and _held(out) == before:
            time.sleep(0.2)
        assert _held(out) > before
        assert _generate("pause", str(out)).returncode == 0
        # SIGSTOP takes effect when a process next runs, which on a loaded machine can be a moment later.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(p.status() == psutil.STATUS_STOPPED for p in family):
            time.sleep(0.05)
        assert all(p.status() == psutil.STATUS_STOPPED for p in family)
        assert _generate("resume", str(out)).returncode == 0
    finally:
        # A failed check may leave the family stopped: continue all of it, or the stop would hang.
        run.send_signal(signal.SIGTERM)
        for process in family:
            try:
                os.kill(process.pid, signal.SIGCONT)
            except OSError:
                pass
        run.communicate(timeout=30)
    # Without a running generator the command runs alone, and pause says there is none.
    alone = _generate("paused", str(out), "--", sys.executable, "-c", "print('ran')")
    assert alone.returncode == 0 and alone.stdout.strip() == "ran" and "no generator runs" in alone.stderr
    assert _generate("pause", str(out)).returncode == 1


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


def test_merge_and_stats_refuse_bad_inputs_in_one_line(tmp_path: Path) -> None:
    noise = tmp_path / "noise.kpos"
    noise.write_bytes(random.Random(2).randbytes(32 * 40))
    fifo = tmp_path / "fifo.kgame"
    os.mkfifo(fifo)
    merged = _generate("merge", str(noise), "-o", str(tmp_path / "out.kpos"))
    assert merged.returncode == 1 and "not a valid .kpos file" in merged.stderr
    assert not (tmp_path / "out.kpos").exists()
    for command in (("stats", str(fifo)), ("merge", str(fifo), "-o", str(tmp_path / "out.kpos")),
                    ("merge", str(noise), "-o", str(tmp_path / "no" / "out.kpos"))):
        result = _generate(*command)
        assert result.returncode == 2 and "Traceback" not in result.stderr, (command, result.stderr)
    assert "not a regular file" in _generate("stats", str(fifo)).stderr


def test_progress_never_shows_a_negative_time_left(capsys: pytest.CaptureFixture[str]) -> None:
    progress = datagen.Progress(0, 100, every=0)
    progress.started -= 10
    progress.update(150, 3, force=True)
    assert "ETA 0h00m" in capsys.readouterr().err


def test_progress_leaves_a_stop_out_of_the_rate(capsys: pytest.CaptureFixture[str]) -> None:
    progress = datagen.Progress(0, 1000, every=0)
    progress.started -= 3610          # 10 s of play, then an hour stopped (datagen paused)
    progress.last_call -= 3600
    progress.continued()
    progress.update(1000, 10, force=True)
    assert "1,000 / 1,000 positions, 100 pos/s, 10 games, ETA 0h00m, stopped 60 min" in capsys.readouterr().err
    # Without a SIGCONT the same gap is running time: a slow stretch, not a stop.
    progress = datagen.Progress(0, 1000, every=0)
    progress.started -= 3610
    progress.last_call -= 3600
    progress.update(1000, 10, force=True)
    line = capsys.readouterr().err
    assert "positions, 0 pos/s," in line and "stopped" not in line


def test_a_generator_stopped_and_continued_reports_its_running_rate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """SIGSTOP cannot be caught, so the test plays its part: an hour passes on the clock, then SIGCONT."""
    clock = [1000.0]
    monkeypatch.setattr(datagen.time, "monotonic", lambda: clock[0])
    games = fake_games(10)

    def stopped_once(first: int, seed: int, settings: datagen.Settings) -> Iterator[datagen.GameRecords]:
        for number, game in enumerate(games(first, seed, settings)):
            clock[0] += 0.1
            if number == 10:
                clock[0] += 3600
                os.kill(os.getpid(), signal.SIGCONT)
            yield game

    before = signal.getsignal(signal.SIGCONT)
    held = datagen.generate(str(tmp_path / "d"), 200, FAST, seed=1, games=stopped_once, progress_every=0)
    assert held == 200
    last = capsys.readouterr().err.strip().splitlines()[-1]
    # 200 positions in 2 s of play (1.9 s counted: the game that ended the stop counts as stopped);
    # the wall clock's figure would be 0 pos/s.
    rate = int(last.split(" positions, ")[1].split(" pos/s")[0])
    assert 100 <= rate <= 106 and "stopped 60 min" in last, last
    assert signal.getsignal(signal.SIGCONT) == before


def test_the_engines_tables_end_games_they_know() -> None:
    from dataclasses import replace
    settings = replace(FAST, syzygy=str(SHARED_DATA / "syzygy"))
    assert datagen._tablebase_result(Position("8/8/8/4k3/8/8/8/K6Q w - - 0 1"), settings) == RESULT_WIN
    assert datagen._tablebase_result(Position("8/8/8/4k3/8/8/8/K6Q b - - 0 1"), settings) == RESULT_LOSS
    assert datagen._tablebase_result(Position("8/8/8/4k3/8/8/8/K6N w - - 0 1"), settings) == RESULT_DRAW
    # Castling rights and six pieces are beyond the tables: the game goes on.
    assert datagen._tablebase_result(Position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"), settings) is None
    assert datagen._tablebase_result(Position("4k3/8/8/8/8/8/PPP5/R3K3 w - - 0 1"), settings) is None


def test_positions_with_more_men_than_the_tables_are_not_probed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A probe of a position with more men than the largest table always misses (60 us a ply in
    5-man endings with the shared 4-man set): it is not made."""
    probed: list[str] = []

    def probe(fen: str) -> int | None:
        probed.append(fen)
        return 0

    monkeypatch.setattr(datagen, "_PROBE", (probe, 4))
    settings = datagen.Settings(syzygy="tables")
    assert datagen._tablebase_result(Position("8/8/8/4k3/8/8/1P6/K5RQ w - - 0 1"), settings) is None
    assert datagen._tablebase_result(Position("8/8/8/4k3/8/8/8/K5RQ w - - 0 1"), settings) == RESULT_DRAW
    assert probed == ["8/8/8/4k3/8/8/8/K5RQ w - - 0 1"]


@pytest.mark.serial
def test_the_device_burst_script_returns_one_shard_of_whole_games(tmp_path: Path) -> None:
    """tools/device_burst.sh as a lent machine runs it, for a few seconds, with the core as the tests
    have it (--no-build: a build in place would cost CI minutes): the generator is stopped by
    `timeout` at the deadline, and one shard of whole games comes back under $OUT."""
    out = tmp_path / "out"
    env = dict(os.environ, OUT=str(out), PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    result = subprocess.run(["bash", "tools/device_burst.sh", "--no-build", "6", "5"], cwd=REPO_ROOT, env=env,
                            capture_output=True, text=True, timeout=240, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "built the core" not in result.stdout, result.stderr
    shards = sorted(out.glob("*.kgame"))
    assert [shard.name for shard in shards] == ["burst-5.kgame"]
    games, plies, whole = game_records.scan(str(shards[0]))
    assert games >= 1 and whole == shards[0].stat().st_size
    assert f'"positions": {plies}' in result.stdout


def test_split_cuts_a_game_file_at_a_game_boundary(tmp_path: Path) -> None:
    games = [game_records.pack_game(chess.STARTING_FEN, game_records.RESULT_DRAW, moves, [10 * i] * len(moves))
             for i, moves in enumerate((["e2e4", "e7e5"], ["d2d4"], ["g1f3", "g8f6", "c2c4"]))]
    source = tmp_path / "all.kgame"
    source.write_bytes(b"".join(games) + games[0][:7])          # and a partial game at the end
    head, rest = tmp_path / "val.kgame", tmp_path / "train.kgame"
    assert datagen.main(["split", str(source), "--games", "2", str(head), str(rest)]) == 0
    assert [g.moves for g in game_records.read_games(str(head))] == [("e2e4", "e7e5"), ("d2d4",)]
    assert [g.scores for g in game_records.read_games(str(rest))] == [(20, 20, 20)]
    # Asking for more games than the file holds puts them all in the head.
    assert game_records.split_games(str(source), 9, str(head), str(rest)) == (3, 0)
    assert rest.read_bytes() == b""
    with pytest.raises(SystemExit):
        datagen.main(["split", str(source), "--games", "-1", str(head), str(rest)])
