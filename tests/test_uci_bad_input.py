"""Bad input: each mistake gets an `info string`, and Kestrel keeps serving."""

from __future__ import annotations

import os
import random
import re
import struct
import subprocess
from pathlib import Path

import chess
import chess.polyglot
import pytest
from conftest import ENGINE_COMMAND, REPO_ROOT, UciProcess, bestmoves, info_strings
from net_files import constant_net_file

from uci_engine.book import MAX_BOOK_BYTES
from uci_engine.strength import FULL_STRENGTH_ELO, MIN_ELO

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
CONSTANT_CP = 1235      # what the constant net says about every position, for the side to move


def position_fen(engine: UciProcess) -> str:
    engine.send("d")
    return engine.read_until("Fen: ")[-1][len("Fen: "):]


def answer_to(engine: UciProcess, line: str) -> list[str]:
    """The info strings that answer `line`."""
    engine.send(line)
    return info_strings(engine.ready())


def test_unknown_command_empty_line_and_garbage(engine: UciProcess) -> None:
    assert answer_to(engine, "xyzzy 1 2 3")[0].startswith("unknown command 'xyzzy' ignored")
    assert answer_to(engine, "") == ["empty line ignored"]
    assert answer_to(engine, "   \t ") == ["empty line ignored"]
    engine.send(b"\x00\xff\xfe\x80garbage\r\n")
    reply = info_strings(engine.ready())
    assert len(reply) == 1 and reply[0].startswith("unknown command '\\x00\\ufffd")


def test_bad_position_keeps_the_previous_one(engine: UciProcess) -> None:
    engine.send("position startpos moves e2e4")
    bad = {
        "position fen 8/8/8 w": "bad FEN",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1": "bad FEN",
        "position fen": "the FEN is missing",
        "position startpos moves e2e4 e7e5 e1e3": "move 3 'e1e3': illegal move",
        "position startpos moves e2e4 zz9": "move 2 'zz9': malformed move",
        "position startpos junk moves e2e4": "unexpected 'junk'",
        "position": "position needs startpos or fen",
        "position somewhere": "expected startpos or fen",
    }
    for line, reason in bad.items():
        reply = answer_to(engine, line)
        assert len(reply) == 1 and reason in reply[0], (line, reply)
        assert position_fen(engine) == AFTER_E4, line
    engine.send("position startpos moves E2E4")   # UCI moves are lower case
    engine.ready()
    assert position_fen(engine) == AFTER_E4


def test_bad_options(engine: UciProcess) -> None:
    assert answer_to(engine, "setoption name NoSuchOption value 3")[0].startswith("no option named 'NoSuchOption'")
    assert answer_to(engine, "setoption name Hash value 0") == ["option Hash must be from 1 to 4096, not 0"]
    assert answer_to(engine, "setoption name Hash value lots") == \
        ["option Hash takes an integer from 1 to 4096, not 'lots'"]
    assert answer_to(engine, "setoption name Hash") == \
        ["option Hash needs a value (setoption name Hash value ...)"]
    assert answer_to(engine, "setoption name Threads value 0") == ["option Threads must be from 1 to 256, not 0"]
    assert answer_to(engine, "setoption name UCI_Elo value 5") == [
        f"option UCI_Elo must be from {MIN_ELO} to {FULL_STRENGTH_ELO}, not 5"]
    assert answer_to(engine, "setoption name Ponder value maybe") == ["option Ponder takes true or false, not 'maybe'"]
    assert answer_to(engine, "setoption name SearchMode value Random")[0].startswith("option SearchMode takes one of")
    assert answer_to(engine, "setoption Hash 32") == ["expected setoption name <name> [value <value>]"]
    reply = answer_to(engine, "setoption name BookFile value /no/such/book.bin")
    assert reply[0].startswith("BookFile '/no/such/book.bin' cannot be read")
    # Names and combo values match case-insensitively; a good value still works afterwards.
    assert answer_to(engine, "setoption name move   overhead value 100") == []
    assert answer_to(engine, "setoption name searchmode value alphabeta") == []
    assert answer_to(engine, "setoption name clear hash") == []
    engine.send("go depth 2")
    assert len(bestmoves(engine.read_until("bestmove"))) == 1


def test_go_with_nonsense_numbers(engine: UciProcess) -> None:
    engine.send("position startpos", "go depth x2 nodes -5 movestogo 0 wtime -100 btime 99999999999999 foo depth")
    lines = engine.read_until("bestmove", 20)
    assert info_strings(lines)[:5] == [
        "go: depth takes a whole number, not 'x2'; ignored",
        "go: nodes must be at least 1, not -5; using 1",
        "go: movestogo must be at least 1, not 0; ignored",
        "go: btime 99999999999999 is more than 2147483647; using 2147483647",
        "go: unknown word 'foo' ignored",
    ]
    assert "go: depth needs a number; ignored" in info_strings(lines)
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
    engine.send("go searchmoves e2e5 e2e4 depth 2")
    lines = engine.read_until("bestmove", 20)
    assert info_strings(lines) == ["go searchmoves: 'e2e5' not legal here; ignored"]
    assert lines[-1].split()[1] == "e2e4"


def test_commands_out_of_place_are_harmless(engine: UciProcess) -> None:
    assert answer_to(engine, "stop") == []
    assert answer_to(engine, "ponderhit") == []
    assert answer_to(engine, "debug maybe") == ["expected debug on or debug off"]
    assert answer_to(engine, "bench x") == ["bench: depth must be a number from 1 to 64, not 'x'"]
    assert bestmoves(engine.seen) == []


def test_an_overlong_line_is_skipped(engine: UciProcess) -> None:
    engine.send("position startpos moves " + "e2e4 " * 300_000)
    assert info_strings(engine.ready()) == ["ignored a line longer than 1048576 bytes"]


def test_closed_stdin_when_idle() -> None:
    process = UciProcess()
    try:
        process.send("uci")
        process.close_stdin()
        assert process.read_until("uciok")
        assert process.wait_exit(20) == 0
        assert process.stderr == ""
    finally:
        process.close()


# FENs whose move counters do not fit the board's integers.

OVERFLOWING_FENS = ["4k3/8/8/8/8/8/8/4K3 w - - 0 99999999999", "4k3/8/8/8/8/8/8/4K3 w - - 99999999999999999999 1"]


def test_move_counters_that_overflow_are_a_bad_fen(engine: UciProcess) -> None:
    engine.send("position startpos moves e2e4")
    for fen in OVERFLOWING_FENS:
        reply = answer_to(engine, f"position fen {fen}")
        assert len(reply) == 1 and "bad FEN" in reply[0], reply
        assert "half-move clock and move number must be between 0 and 100000" in reply[0], reply
        assert position_fen(engine) == AFTER_E4
    assert not any("internal error" in line for line in engine.seen)


def test_perft_of_a_fen_whose_counters_overflow() -> None:
    result = subprocess.run([*ENGINE_COMMAND, "perft", "1", OVERFLOWING_FENS[0]], cwd=REPO_ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("kestrel perft: bad FEN: half-move clock and move number must be between 0 and "
                             "100000, not '0 99999999999'\n")


# Net and book paths that are no file: each is refused at once, and the engine keeps serving.

def no_files(tmp_path: Path) -> list[tuple[str, str]]:
    """(path, the kind the refusal names): none may be opened, or the engine would wait or read forever."""
    fifo = tmp_path / "named.fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.bin"
    folder.mkdir()
    # /dev/stdin is the engine's own command pipe: reading it would eat the GUI's next commands.
    return [(str(fifo), "FIFO"), (str(folder), "directory"), ("/dev/zero", "character device"),
            ("/dev/stdin", "FIFO")]


def depth_one_score(engine: UciProcess) -> int:
    engine.send("position startpos", "go depth 1")
    lines = engine.read_until("bestmove")
    scores = [int(m.group(1)) for line in lines if (m := re.search(r" score cp (-?\d+)", line))]
    assert scores, lines
    return scores[-1]


def test_an_eval_file_that_is_no_file_leaves_the_built_in_net(engine: UciProcess, tmp_path: Path) -> None:
    constant = constant_net_file(tmp_path / "constant.nnue", CONSTANT_CP)
    for path, kind in no_files(tmp_path):
        assert answer_to(engine, f"setoption name EvalFile value {constant}") == \
            [f"EvalFile '{constant}' loaded: 16 hidden units"]
        assert depth_one_score(engine) == -CONSTANT_CP
        # answer_to sends isready: it fails unless readyok comes (within its 20 s).
        reply = answer_to(engine, f"setoption name EvalFile value {path}")
        assert len(reply) == 1 and reply[0].startswith(f"EvalFile '{path}' cannot be used"), reply
        assert "not a regular file" in reply[0] and kind in reply[0], reply
        assert reply[0].endswith("the built-in net takes its place")
        assert depth_one_score(engine) != -CONSTANT_CP, path
    engine.send("position startpos moves e2e4", "go depth 3")
    assert chess.Move.from_uci(bestmoves(engine.read_until("bestmove"))[0].split()[1]) in \
        chess.Board(AFTER_E4).legal_moves


def test_a_fifo_eval_file_during_a_search_then_stop_and_quit(engine: UciProcess, tmp_path: Path) -> None:
    fifo = tmp_path / "net.fifo"
    os.mkfifo(fifo)
    engine.send("position startpos", "go infinite")
    engine.read_until("info depth")
    engine.send(f"setoption name EvalFile value {fifo}", "stop")
    lines = engine.read_until("bestmove")
    assert any("not a regular file" in line for line in info_strings(lines)), lines
    engine.send("quit")
    assert engine.wait_exit(20) == 0
    assert "Traceback" not in engine.stderr


def one_move_book(path: Path) -> Path:
    """A Polyglot book with one entry: 1. e4 from the start position."""
    move = chess.Move.from_uci("e2e4")
    raw = move.to_square | (move.from_square << 6)
    path.write_bytes(struct.pack(">QHHI", chess.polyglot.zobrist_hash(chess.Board()), raw, 1, 0))
    return path


def test_a_book_file_that_is_no_file_leaves_no_book(engine: UciProcess, tmp_path: Path) -> None:
    book = one_move_book(tmp_path / "book.bin")
    engine.send("setoption name OwnBook value true", "debug on")    # debug: the missing book is reported
    for path, kind in no_files(tmp_path):
        assert answer_to(engine, f"setoption name BookFile value {book}") == [f"BookFile = {book}"]
        engine.send("position startpos", "go wtime 10000 btime 10000")
        assert "book move e2e4" in info_strings(engine.read_until("bestmove"))
        echo, *reply = answer_to(engine, f"setoption name BookFile value {path}")
        assert echo == f"BookFile = {path}"
        assert len(reply) == 1 and reply[0].startswith(f"BookFile '{path}' cannot be read"), reply
        assert "not a regular file" in reply[0] and kind in reply[0] and reply[0].endswith("no book in use"), reply
        engine.send("position startpos", "go wtime 10000 btime 10000")
        lines = engine.read_until("bestmove")
        assert "OwnBook is on but no BookFile is loaded" in info_strings(lines), path
        assert not any(line.startswith("book move") for line in info_strings(lines))


def test_a_huge_book_file_is_refused_and_the_engine_keeps_serving(engine: UciProcess, tmp_path: Path) -> None:
    """A book past the largest the engine reads (sparse: no disk used) is refused before a byte is read,
    and the book before it is gone too."""
    book = one_move_book(tmp_path / "book.bin")
    huge = tmp_path / "huge.bin"
    with huge.open("wb") as file:
        file.write(book.read_bytes())
        file.truncate(MAX_BOOK_BYTES + 16)
    engine.send("setoption name OwnBook value true", f"setoption name BookFile value {book}")
    reply = answer_to(engine, f"setoption name BookFile value {huge}")
    assert reply == [f"BookFile '{huge}' cannot be read ({huge}: {MAX_BOOK_BYTES + 16:,} bytes, more than the "
                     f"{MAX_BOOK_BYTES:,} of the largest book this engine reads); no book in use"]
    engine.send("position startpos", "go wtime 10000 btime 10000")
    lines = engine.read_until("bestmove")
    assert not any(line.startswith("book move") for line in info_strings(lines)), lines    # searched instead
    assert any(line.startswith("info depth") for line in lines)
    assert chess.Move.from_uci(bestmoves(lines)[0].split()[1]) in chess.Board().legal_moves


# The fuzz test: random bytes, mangled commands and shuffled protocol words.

VOCABULARY = [
    "uci", "isready", "ucinewgame", "setoption", "name", "value", "position", "startpos", "fen",
    "moves", "go", "stop", "ponderhit", "debug", "on", "off", "d", "eval", "register", "later",
    "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime", "infinite",
    "ponder", "searchmoves", "Hash", "Threads", "MultiPV", "Ponder", "Move", "Overhead", "Clear",
    "SearchMode", "AlphaBeta", "MCTS", "OwnBook", "BookFile", "true", "false", "e2e4", "e7e5", "g1f3",
    "e1g1", "a7a8q", "0000", "e2e9", "-1", "0", "1", "2", "7", "64", "-99999999999", "99999999999999999999",
    "1.5", "1e3", "0x10", "NaN", "\u00e9", "\ufffd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "w", "b",
    "KQkq", "-", "8/8/8/8/8/8/8/8", "k7/8/8/8/8/8/8/7K",
]
TEMPLATES = [
    "position startpos moves e2e4 e7e5", "position fen 7k/8/8/8/8/8/8/K7 w - - 0 1 moves a1a2",
    "go depth 1", "go nodes 200", "go movetime 5", "go wtime 30 btime 30 winc 0 binc 0", "go infinite",
    "go ponder wtime 50 btime 50", "stop", "ponderhit", "isready", "ucinewgame", "debug on", "debug off",
    "setoption name Hash value 2", "setoption name MultiPV value 2", "setoption name Move Overhead value 5",
    "setoption name Clear Hash", "setoption name OwnBook value true", "d", "eval", "uci",
]
FORBIDDEN_FIRST_WORDS = {"quit", "bench"}   # quit ends the test; bench is a long benchmark


def fuzz_line(rng: random.Random) -> bytes:
    kind = rng.random()
    if kind < 0.35:
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 80)))
        return raw.replace(b"\n", b" ")
    if kind < 0.7:
        words = rng.choice(TEMPLATES).split()
        for _ in range(rng.randrange(1, 4)):
            action = rng.randrange(4)
            position = rng.randrange(len(words) + 1)
            if action == 0 and words:
                del words[min(position, len(words) - 1)]
            elif action == 1:
                words.insert(position, rng.choice(VOCABULARY))
            elif action == 2 and words:
                words[min(position, len(words) - 1)] = str(rng.randint(-10**12, 10**12))
            else:
                words.insert(position, rng.choice(VOCABULARY).upper())
        text = " ".join(words)
    else:
        text = " ".join(rng.choice(VOCABULARY) for _ in range(rng.randrange(0, 12)))
    return rng.choice(["", " ", "\t"]).join([""] + [text]).encode("utf-8") + rng.choice([b"", b"\r", b" "])


def safe(line: bytes) -> bool:
    words = line.decode("utf-8", "replace").split()
    return not (words and words[0].lower() in FORBIDDEN_FIRST_WORDS) and b"perft" not in line


@pytest.mark.slow
def test_fuzz_ten_thousand_lines() -> None:
    rng = random.Random(20240611)
    process = UciProcess()
    try:
        process.handshake()
        sent = 0
        for _ in range(4):
            batch = []
            while len(batch) < 2600:
                line = fuzz_line(rng)
                if safe(line):
                    batch.append(line + b"\n")
            process.send(b"".join(batch))
            sent += len(batch)
            process.ready(timeout=90)
        assert sent >= 10_000
        assert process.proc.poll() is None
        process.send("stop", "position startpos moves e2e4", "go depth 2")
        line = process.read_until("bestmove", 30)[-1]
        # Bestmoves of fuzzed searches may still arrive; the last one answers the final go.
        while True:
            more = process.drain(0.5)
            if not bestmoves(more):
                break
            line = bestmoves(more)[-1]
        assert chess.Move.from_uci(line.split()[1]) in chess.Board(AFTER_E4).legal_moves
        process.send("quit")
        assert process.wait_exit(20) == 0
        assert "Traceback" not in process.stderr
    finally:
        process.close()
