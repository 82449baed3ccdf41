"""The training positions' file format: fixed 32-byte records, little-endian.

A file (``.kpos``) is nothing but records, so shards concatenate with ``cat`` and a reader can
seek to any record.  One record is one position with its labels::

    offset size  field
    0      8     occupied   uint64: bit s set when square s (a1 = 0 ... h8 = 63) holds a piece
    8      16    pieces     32 nibbles: the piece code of each occupied square, lowest square
                            first, low nibble before high nibble (code = type + 6 * colour,
                            type pawn 0 .. king 5, colour white 0 / black 1: the core's codes)
    24     2     score      int16: the search score in centipawns, from the side to move's view
    26     1     result     uint8: the game's result from the side to move's view:
                            0 loss, 1 draw, 2 win
    27     1     flags      uint8: bits 0-3 castling rights (K, Q, k, q), bit 7 black to move
    28     1     ep         uint8: the en-passant target square, 64 when none
    29     1     halfmove   uint8: the halfmove clock (capped at 255)
    30     2     fullmove   uint16: the fullmove number

The generator writes only quiet, scored positions: not in check, the best move neither a capture
nor a promotion, the score not a mate score.  Standard chess only (castling rights as the four
standard ones).
"""

from __future__ import annotations

import argparse
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.arguments import ToolParser, fail, non_negative_int, parse, readable_file

if TYPE_CHECKING:
    from search.board.position import Position

RECORD_SIZE = 32
MAX_PIECES = 32
PIECE_CODES = 12
EMPTY = PIECE_CODES             # the code of an empty square in Position.squares()
NO_SQUARE = 64
RESULT_LOSS, RESULT_DRAW, RESULT_WIN = 0, 1, 2
PIECE_LETTERS = "PNBRQKpnbrqk"
CASTLING_LETTERS = "KQkq"
BLACK_TO_MOVE = 0x80

_TAIL = struct.Struct("<hBBBBH")
_HEAD = struct.Struct("<Q")


@dataclass(frozen=True)
class Record:
    """One training position: its FEN, the search score and the game result (side to move's view)."""

    fen: str
    score: int
    result: int


def pack(position: Position | str, score: int, result: int) -> bytes:
    """The 32 bytes of one record of a core ``Position`` (or a FEN, which the core reads: ValueError
    when it is not a position this format can hold)."""
    if isinstance(position, str):
        from search.board.position import Position
        position = Position(position)
    occupied = 0
    codes = []
    # The nibbles follow the squares in increasing order.
    for square, code in enumerate(position.squares()):
        if code != EMPTY:
            occupied |= 1 << square
            codes.append(code)
    if len(codes) > MAX_PIECES:
        raise ValueError(f"more than {MAX_PIECES} pieces: {position.fen()!r}")
    nibbles = bytearray(16)
    for index, code in enumerate(codes):
        nibbles[index >> 1] |= code << (4 * (index & 1))
    flags = position.castling_rights | (0 if position.turn else BLACK_TO_MOVE)
    score = max(-32767, min(32767, int(score)))
    if result not in (RESULT_LOSS, RESULT_DRAW, RESULT_WIN):
        raise ValueError(f"result must be 0, 1 or 2, not {result!r}")
    return (_HEAD.pack(occupied) + bytes(nibbles)
            + _TAIL.pack(score, result, flags, position.ep_square, min(position.halfmove_clock, 255),
                         position.fullmove_number & 0xFFFF))


def unpack(data: bytes | memoryview) -> Record:
    """The record in the first 32 bytes of `data`."""
    (occupied,) = _HEAD.unpack_from(data, 0)
    if occupied.bit_count() > MAX_PIECES:
        raise ValueError(f"{occupied.bit_count()} occupied squares, more than the {MAX_PIECES} a record holds")
    nibbles = bytes(data[8:24])
    score, result, flags, ep_square, halfmove, fullmove = _TAIL.unpack_from(data, 24)
    if result > RESULT_WIN:
        raise ValueError(f"result {result} (results are 0 loss, 1 draw, 2 win)")
    board: list[str | None] = [None] * 64
    index = 0
    for square in range(64):
        if occupied >> square & 1:
            code = (nibbles[index >> 1] >> (4 * (index & 1))) & 15
            if code >= PIECE_CODES:
                raise ValueError(f"bad piece code {code} (codes are 0..{PIECE_CODES - 1})")
            board[square] = PIECE_LETTERS[code]
            index += 1
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            piece = board[rank * 8 + file]
            if piece is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += piece
        rows.append(row + (str(empty) if empty else ""))
    castling = "".join(letter for bit, letter in enumerate(CASTLING_LETTERS) if flags >> bit & 1) or "-"
    ep = "-" if ep_square >= NO_SQUARE else "abcdefgh"[ep_square & 7] + str((ep_square >> 3) + 1)
    turn = "b" if flags & BLACK_TO_MOVE else "w"
    fen = f"{'/'.join(rows)} {turn} {castling} {ep} {halfmove} {fullmove}"
    return Record(fen, score, result)


def read_records(path: str | Path) -> Iterator[Record]:
    """Every whole record of a file, in order (a trailing partial record is ignored); ValueError
    naming the record's number (from 0) at the first one that breaks the format."""
    number = 0
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(RECORD_SIZE * 4096)
            if not chunk:
                return
            view = memoryview(chunk)
            for offset in range(0, len(chunk) - RECORD_SIZE + 1, RECORD_SIZE):
                try:
                    record = unpack(view[offset:offset + RECORD_SIZE])
                except ValueError as error:
                    raise ValueError(f"record {number}: {error}") from None
                yield record
                number += 1


def records_file(text: str) -> Path:
    """An argparse ``type=``: a readable regular file of whole records (its contents are checked by
    the reader: `unpack`, or `first_bad_record` for a whole array)."""
    path = readable_file(text)
    size = path.stat().st_size
    if size % RECORD_SIZE:
        raise argparse.ArgumentTypeError(f"{text}: {size} bytes is not a whole number of {RECORD_SIZE}-byte "
                                         "records; a truncated or foreign file (give a .kpos file)")
    return path


# The set bits of every byte value: a record's piece count is the sum over its eight occupancy bytes.
_BYTE_BITS = bytes(bin(value).count("1") for value in range(256))


def first_bad_record(records: Any) -> tuple[int, str] | None:
    """(index, problem) of the first record of `records` (uint8, shape (n, 32)) that breaks the
    format: more than 32 pieces, a piece code of 12 or more, a result other than 0, 1, 2, unused
    flag bits, an en-passant square past 64.  The vectorised check the trainer and the merge run
    over their data before using it (numpy imported here)."""
    import numpy as np
    counts = np.frombuffer(_BYTE_BITS, dtype=np.uint8)[records[:, :8]].sum(axis=1, dtype=np.int32)
    codes = np.empty((len(records), MAX_PIECES), dtype=np.uint8)
    codes[:, 0::2] = records[:, 8:24] & 15
    codes[:, 1::2] = records[:, 8:24] >> 4
    in_use = np.arange(MAX_PIECES) < counts[:, None]
    bad_code = ((codes >= PIECE_CODES) & in_use).any(axis=1)
    bad_result = records[:, 26] > RESULT_WIN
    bad = (counts > MAX_PIECES) | bad_code | bad_result | ((records[:, 27] & 0x70) != 0) | (records[:, 28] > NO_SQUARE)
    if not bad.any():
        return None
    index = int(np.argmax(bad))
    if counts[index] > MAX_PIECES:
        return index, f"{counts[index]} occupied squares, more than the {MAX_PIECES} a record holds"
    if bad_code[index]:
        return index, f"bad piece code {int(codes[index][in_use[index]].max())} (codes are 0..{PIECE_CODES - 1})"
    if bad_result[index]:
        return index, f"result {records[index, 26]} (results are 0 loss, 1 draw, 2 win)"
    if records[index, 27] & 0x70:
        return index, f"flags {records[index, 27]:#04x} (bits 4-6 are unused)"
    return index, f"en-passant square {records[index, 28]} (squares are 0..63, 64 for none)"


def record_dtype() -> Any:
    """The numpy dtype of one record, for readers that load whole files (numpy imported here)."""
    import numpy as np
    return np.dtype([("occupied", "<u8"), ("pieces", "u1", (16,)), ("score", "<i2"), ("result", "u1"),
                     ("flags", "u1"), ("ep", "u1"), ("halfmove", "u1"), ("fullmove", "<u2")])


def load_array(path: str) -> Any:
    """The whole records of a file as a numpy structured array (memory-mapped, read-only)."""
    import os

    import numpy as np
    count = os.path.getsize(path) // RECORD_SIZE
    if count == 0:
        return np.zeros(0, dtype=record_dtype())
    return np.memmap(path, dtype=record_dtype(), mode="r", shape=(count,))


def main(argv: list[str] | None = None) -> int:
    """Print records as text, one per line: FEN, score and result (the reader from the shell)."""
    parser = ToolParser(prog="python -m tools.nnue_data",
                        description="Print training records (.kpos) as 'FEN | score | result'.")
    parser.add_argument("files", nargs="+", type=records_file, help=".kpos files")
    parser.add_argument("--limit", type=non_negative_int, default=0,
                        help="at most this many records per file (0: all)")
    args = parse(parser, argv)
    if args is None:
        return 2
    results = {RESULT_LOSS: "loss", RESULT_DRAW: "draw", RESULT_WIN: "win"}
    for path in args.files:
        try:
            for count, record in enumerate(read_records(path), 1):
                print(f"{record.fen} | {record.score} | {results.get(record.result, record.result)}")
                if count == args.limit:
                    break
        except (OSError, ValueError) as err:
            return fail(parser.prog, f"{path}: {err}; the file is not a valid .kpos file")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
