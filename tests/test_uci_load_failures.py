"""Failures of any kind while loading `EvalFile` or `BookFile` (out of memory, a bug, a read that never
ends): the built-in net plays, or no book, with an `info string`; never the previous net or book."""

from __future__ import annotations

import gc
import os
import re
import struct
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import chess.polyglot
import pytest
from conftest import send, uci_session
from net_files import constant_net_file

import eval.input_files as input_files
import eval.networks as networks
import uci_engine.book as uci_book
import uci_engine.evaluation as evaluation
from uci_engine.evaluation import EvaluationChoice, call_within

CONSTANT_CP = 777


def nnue_score(lines: list[str]) -> int:
    """The net's score in the output of `eval`."""
    scores = [int(m.group(1)) for line in lines if (m := re.search(r"NNUE evaluation (-?\d+)", line))]
    assert len(scores) == 1, lines
    return scores[0]


def failing(kind: type[BaseException], *args: object) -> Callable[..., Any]:
    """A stand-in that raises a new `kind(*args)` on each call (an instance kept here would tie each
    traceback back to itself, a cycle that keeps the engine's frames alive)."""
    def fail(*ignored: Any) -> Any:
        raise kind(*args)
    return fail


@pytest.mark.parametrize("exc, words", [
    ((MemoryError,), "(MemoryError)"),
    ((RuntimeError, "boom"), "(RuntimeError: boom)"),
    ((OverflowError, "too big"), "(OverflowError: too big)"),
])
def test_any_failure_loading_a_net_leaves_the_built_in_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           exc: tuple[Any, ...], words: str) -> None:
    builtin = networks.builtin_network()      # read (and kept) before loading breaks
    choice = EvaluationChoice()
    good = constant_net_file(tmp_path / "good.nnue", CONSTANT_CP)
    assert choice.open(str(good)) == [f"EvalFile '{good}' loaded: 16 hidden units"]
    previous = choice.custom
    assert previous is not None
    monkeypatch.setattr(networks, "load_network", failing(*exc))
    other = str(tmp_path / "other.nnue")
    assert choice.open(other) == [f"EvalFile '{other}' cannot be used {words}; the built-in net takes its place"]
    assert choice.custom is None and choice.custom_path == ""
    network, problems = choice.network(use_nnue=True)
    assert network is builtin and problems == []


def test_a_memory_error_through_setoption(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    networks.builtin_network()
    engine, buffer = uci_session()
    good = constant_net_file(tmp_path / "good.nnue", CONSTANT_CP)
    send(engine, buffer, f"setoption name EvalFile value {good}")
    send(engine, buffer, "position startpos moves e2e4")
    constant = nnue_score(send(engine, buffer, "eval"))
    assert abs(constant - CONSTANT_CP) <= 1          # the constant net speaks (up to rounding)
    monkeypatch.setattr(networks, "load_network", failing(MemoryError))
    reply = send(engine, buffer, f"setoption name EvalFile value {good}")
    assert reply == [f"info string EvalFile '{good}' cannot be used (MemoryError); the built-in net takes its place"]
    assert nnue_score(send(engine, buffer, "eval")) != constant
    assert send(engine, buffer, "isready")[-1] == "readyok"
    engine.shutdown()


def test_a_load_that_never_ends_is_given_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def stuck(path: Any) -> Any:
        release.wait()
        raise OSError("released")

    choice = EvaluationChoice()
    good = constant_net_file(tmp_path / "good.nnue", CONSTANT_CP)
    choice.open(str(good))
    monkeypatch.setattr(networks, "load_network", stuck)
    monkeypatch.setattr(evaluation, "LOAD_WAIT_S", 0.2)
    try:
        assert choice.open("/slow/net.nnue") == ["EvalFile '/slow/net.nnue' cannot be used (TimeoutError: reading "
                                                 "took more than 0.2 s); the built-in net takes its place"]
        assert choice.custom is None
    finally:
        release.set()


def test_call_within_returns_and_raises_what_the_call_does() -> None:
    assert call_within(lambda: 42, 10.0, "test") == 42
    with pytest.raises(KeyError, match="x"):
        call_within(failing(KeyError, "x"), 10.0, "test")


class Marker(Exception):
    """An exception whose end a test watches."""


def test_a_failure_handed_over_leaves_no_reference_cycle() -> None:
    """A cycle through the exception would keep the caller's frames, and through them the engine's
    searchers, alive until a garbage collection (at exit at the latest): the handed-over exception must
    go the moment it is handled, by reference counting alone."""
    ends: list[weakref.ref[Marker]] = []

    def fail() -> None:
        error = Marker("x")
        ends.append(weakref.ref(error))
        try:
            raise error
        finally:
            del error       # this frame must not hold it either

    gc.disable()
    try:
        try:
            call_within(fail, 10.0, "test")
        except Marker:
            pass
        assert len(ends) == 1 and ends[0]() is None
    finally:
        gc.enable()


def one_move_book(path: Path) -> Path:
    """A Polyglot book with one entry: 1. e4 from the start position."""
    move = chess.Move.from_uci("e2e4")
    path.write_bytes(struct.pack(">QHHI", chess.polyglot.zobrist_hash(chess.Board()),
                                 move.to_square | (move.from_square << 6), 1, 0))
    return path


def test_any_failure_opening_a_book_leaves_no_book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, buffer = uci_session()
    book = one_move_book(tmp_path / "book.bin")
    send(engine, buffer, "setoption name OwnBook value true")
    assert send(engine, buffer, f"setoption name BookFile value {book}") == []
    assert engine._book.is_open
    monkeypatch.setattr(uci_book, "read_book", failing(MemoryError))
    reply = send(engine, buffer, f"setoption name BookFile value {book}")
    assert reply == [f"info string BookFile '{book}' cannot be read (MemoryError); no book in use"]
    assert not engine._book.is_open
    engine.shutdown()


def test_a_book_swapped_for_a_fifo_after_its_look_is_refused_not_waited_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The path is a regular file when it is looked at and a FIFO when it is opened: the descriptor's
    own check refuses it at once (opening a FIFO by path would wait for a writer forever)."""
    book = one_move_book(tmp_path / "book.bin")
    look = input_files.regular_file_size

    def look_then_swap(path: Any) -> int:
        size = look(path)
        # Only the book: the engine may look at its built-in net through the same function the first
        # time it needs it, and swapping that file would break every test that runs beside this one.
        if Path(path) == book:
            os.unlink(path)
            os.mkfifo(path)
        return size

    engine, buffer = uci_session()
    monkeypatch.setattr(input_files, "regular_file_size", look_then_swap)
    monkeypatch.setattr(uci_book, "READ_WAIT_S", 5.0)      # a wait would show as a TimeoutError, not a hang
    reply = send(engine, buffer, f"setoption name BookFile value {book}")
    assert reply == [f"info string BookFile '{book}' cannot be read ({book}: not a regular file but a FIFO "
                     "(named pipe); give the path of a file); no book in use"]
    assert not engine._book.is_open
    assert send(engine, buffer, "isready") == ["readyok"]
    engine.shutdown()


def test_a_book_read_that_never_ends_is_given_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The book is read on a helper thread: one that never returns costs the book, not the command thread."""
    release = threading.Event()

    def stuck(path: Any) -> Any:
        release.wait()
        raise OSError("released")

    engine, buffer = uci_session()
    book = one_move_book(tmp_path / "book.bin")
    send(engine, buffer, f"setoption name BookFile value {book}")
    assert engine._book.is_open
    monkeypatch.setattr(uci_book, "read_book", stuck)
    monkeypatch.setattr(uci_book, "READ_WAIT_S", 0.2)
    try:
        reply = send(engine, buffer, f"setoption name BookFile value {book}")
        assert reply == [f"info string BookFile '{book}' cannot be read (TimeoutError: reading took more than "
                         "0.2 s); no book in use"]
        assert not engine._book.is_open
        assert send(engine, buffer, "isready") == ["readyok"]
    finally:
        release.set()
    engine.shutdown()


def test_what_read_book_refuses(tmp_path: Path) -> None:
    """Empty, ragged and over-large books are refused with the reason; a good one is read."""
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    ragged = tmp_path / "ragged.bin"
    ragged.write_bytes(one_move_book(tmp_path / "one.bin").read_bytes() + b"x")
    for path, reason in ((empty, "an empty file"), (ragged, "17 bytes, not a whole number of 16-byte")):
        with pytest.raises(ValueError, match=reason):
            uci_book.read_book(str(path))
    with pytest.raises(FileNotFoundError):
        uci_book.read_book(str(tmp_path / "absent.bin"))
    reader = uci_book.read_book(str(tmp_path / "one.bin"))
    assert [entry.move.uci() for entry in reader.find_all(chess.Board())] == ["e2e4"] and len(reader) == 1
