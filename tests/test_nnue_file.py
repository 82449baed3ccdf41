"""The NNUE net file (eval/nnue_file.py): round trip, every refusal, and the reference integer evaluation."""

from __future__ import annotations

import random
import struct
import zlib
from array import array
from pathlib import Path

import chess
import pytest
from nnue_reference import evaluate_reference

from eval.nnue_architecture import (
    FEATURES_KING_MIRRORED,
    FEATURES_PLAIN,
    INPUTS,
    active_features,
    feature_index,
    file_flip,
)
from eval.nnue_file import (
    QA,
    QB,
    SCALE,
    NetParameters,
    net_bytes,
    read_net,
    write_net,
)
from search.board.position import Position

HEADER_SIZE = 36          # version 1; version 2 adds the bucket count
HEADER_SIZE_V2 = 40
FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
    "4k3/8/8/3q4/8/8/8/4K2R b K - 0 40",
]


def random_net(hidden: int = 32, seed: int = 7, description: str = "test net", buckets: int = 1,
               feature_set: int = 0) -> NetParameters:
    """Weights in the range a trained net has (|W| <= 505 = 1.98 * QA), biases that keep units alive."""
    rng = random.Random(seed)
    return NetParameters(
        hidden=hidden, qa=QA, qb=QB, scale=SCALE, description=description,
        feature_weights=array("h", (rng.randint(-120, 120) for _ in range(INPUTS * hidden))),
        feature_bias=array("h", (rng.randint(0, 200) for _ in range(hidden))),
        output_weights=array("h", (rng.randint(-126, 126) for _ in range(buckets * 2 * hidden))),
        output_biases=tuple(rng.randint(-5000, 5000) for _ in range(buckets)), feature_set=feature_set)


def mirror_fen(fen: str) -> str:
    """Colours swapped, board flipped vertically, side to move swapped (castling and en passant too)."""
    placement, turn, castling, ep, *rest = fen.split()
    flipped = "/".join(rank.swapcase() for rank in reversed(placement.split("/")))
    castling = "".join(sorted(castling.swapcase(), key="KQkq".index)) if castling != "-" else "-"
    ep = ep if ep == "-" else ep[0] + str(9 - int(ep[1]))
    return " ".join([flipped, "b" if turn == "w" else "w", castling, ep, *rest])


def with_header(data: bytes, **fields: int) -> bytes:
    """`data` with header fields replaced and the checksum made right again (so the field's check is what fails)."""
    names = ("version", "inputs", "hidden", "activation")
    header = bytearray(data)
    for name, value in fields.items():
        struct.pack_into("<I", header, 4 + 4 * names.index(name), value)
    body = bytes(header[:-4])
    return body + struct.pack("<I", zlib.crc32(body))


def test_round_trip_through_a_file_and_bytes(tmp_path: Path) -> None:
    net = random_net(description="python -m tools.nnue_train data.kpos --epochs 3 (é: UTF-8)")
    path = tmp_path / "net.nnue"
    write_net(path, net)
    data = path.read_bytes()
    assert data[:4] == b"KNUE"
    assert len(data) == HEADER_SIZE + len(net.description.encode()) + 2 * (768 * 32 + 32 + 64) + 8
    assert read_net(path) == net
    assert read_net(data) == net
    assert read_net(memoryview(data)) == net


def test_the_layout_is_the_documented_one() -> None:
    net = random_net(hidden=16, description="ab")
    data = net_bytes(net)
    assert struct.unpack_from("<4sIIIIiiiI", data) == (b"KNUE", 1, 768, 16, 1, 255, 64, 400, 2)
    assert data[36:38] == b"ab"
    offset = 38
    # feature 5, hidden unit 3 at f * N + j, little-endian int16
    assert struct.unpack_from("<h", data, offset + 2 * (5 * 16 + 3))[0] == net.feature_weights[5 * 16 + 3]
    offset += 2 * 768 * 16
    assert struct.unpack_from("<16h", data, offset) == tuple(net.feature_bias)
    offset += 32
    assert struct.unpack_from("<32h", data, offset) == tuple(net.output_weights)
    offset += 64
    assert struct.unpack_from("<i", data, offset)[0] == net.output_biases[0]
    assert struct.unpack_from("<I", data, offset + 4)[0] == zlib.crc32(data[:offset + 4])
    assert len(data) == offset + 8


def test_the_version_2_layout_is_the_documented_one(tmp_path: Path) -> None:
    """Several output buckets: version 2, the bucket count before the description length, the output
    layers bucket after bucket, then one int32 bias per bucket."""
    net = random_net(hidden=16, description="ab", buckets=3)
    data = net_bytes(net)
    assert struct.unpack_from("<4sIIIIiiiII", data) == (b"KNUE", 2, 768, 16, 1, 255, 64, 400, 3, 2)
    assert data[40:42] == b"ab"
    offset = HEADER_SIZE_V2 + 2 + 2 * 768 * 16
    assert struct.unpack_from("<16h", data, offset) == tuple(net.feature_bias)
    offset += 32
    assert struct.unpack_from("<96h", data, offset) == tuple(net.output_weights)
    offset += 2 * 96
    assert struct.unpack_from("<3i", data, offset) == net.output_biases
    assert struct.unpack_from("<I", data, offset + 12)[0] == zlib.crc32(data[:offset + 12])
    assert len(data) == offset + 16
    assert read_net(data) == net and read_net(data).buckets == 3
    write_net(tmp_path / "v2.nnue", net)
    assert read_net(tmp_path / "v2.nnue") == net
    with pytest.raises(ValueError, match="truncated"):
        read_net(data[:-2])
    with pytest.raises(ValueError, match="9 output buckets are not supported"):
        read_net(with_v2_header(data, buckets=9))
    with pytest.raises(ValueError, match="0 output buckets are not supported"):
        read_net(with_v2_header(data, buckets=0))
    with pytest.raises(ValueError, match="truncated"):
        read_net(with_v2_header(data, buckets=4))             # declares a layer more than the file holds
    with pytest.raises(ValueError, match="trailing bytes"):
        read_net(with_v2_header(data, buckets=2))


def test_a_one_bucket_net_is_written_as_version_1_byte_for_byte() -> None:
    """A plain one-bucket net (kestrel-5, kept with the tests) reads and writes back to the
    same bytes: older engines load what this writes."""
    from net_files import PLAIN_NET
    data = PLAIN_NET.read_bytes()
    net = read_net(data)
    assert net.buckets == 1 and net.feature_set == 0 and struct.unpack_from("<I", data, 4)[0] == 1
    assert net_bytes(net) == data


def test_the_package_ships_one_net_the_built_in_one() -> None:
    from eval.networks import NETS_FOLDER, builtin_path
    assert sorted(NETS_FOLDER.iterdir()) == [builtin_path()]


def test_the_shipped_net_is_written_back_byte_for_byte() -> None:
    """The shipped net (king-mirrored, so version 3) reads and writes back to the same bytes."""
    from eval.networks import builtin_path
    data = builtin_path().read_bytes()
    net = read_net(data)
    assert struct.unpack_from("<I", data, 4)[0] == (3 if net.feature_set else 1)
    assert net_bytes(net) == data


def with_v2_header(data: bytes, buckets: int) -> bytes:
    """A version-2 net's bytes with another bucket count and the checksum made right again."""
    header = bytearray(data)
    struct.pack_into("<I", header, 32, buckets)
    body = bytes(header[:-4])
    return body + struct.pack("<I", zlib.crc32(body))


def test_truncated_files_are_refused() -> None:
    data = net_bytes(random_net())
    with pytest.raises(ValueError, match="truncated"):
        read_net(data[:-1])
    with pytest.raises(ValueError, match="truncated"):
        read_net(data[:len(data) // 2])
    with pytest.raises(ValueError, match="truncated"):
        read_net(data[:20])


def test_trailing_bytes_are_refused() -> None:
    with pytest.raises(ValueError, match="3 trailing bytes"):
        read_net(net_bytes(random_net()) + b"\0\0\0")


def test_a_flipped_byte_fails_the_checksum() -> None:
    data = bytearray(net_bytes(random_net()))
    data[HEADER_SIZE + 1000] ^= 0x10
    with pytest.raises(ValueError, match="checksum mismatch"):
        read_net(bytes(data))


def test_bad_magic_and_other_files_are_refused() -> None:
    data = net_bytes(random_net())
    with pytest.raises(ValueError, match="bad magic b'KNUF'"):
        read_net(b"KNUF" + data[4:])
    with pytest.raises(ValueError, match="not a Kestrel NNUE net file"):
        read_net(b"PK\x03\x04" + bytes(100))
    with pytest.raises(ValueError, match="not a Kestrel NNUE net file"):
        read_net(b"")


def test_unsupported_header_values_are_refused() -> None:
    data = net_bytes(random_net())
    with pytest.raises(ValueError, match="unsupported version 4"):
        read_net(with_header(data, version=4))
    with pytest.raises(ValueError, match="unsupported version 0"):
        read_net(with_header(data, version=0))
    with pytest.raises(ValueError):
        read_net(with_header(data, version=2))      # a version-1 file read as version 2: its sizes are wrong
    with pytest.raises(ValueError, match="wrong input count 769"):
        read_net(with_header(data, inputs=769))
    with pytest.raises(ValueError, match="hidden size 20 is not supported"):
        read_net(with_header(data, hidden=20))
    with pytest.raises(ValueError, match="hidden size 2048 is not supported"):
        read_net(with_header(data, hidden=2048))
    with pytest.raises(ValueError, match="unknown activation 2"):
        read_net(with_header(data, activation=2))


def test_write_refuses_inconsistent_parameters(tmp_path: Path) -> None:
    net = random_net()
    bad_size = NetParameters(**{**net.__dict__, "feature_bias": array("h", [0] * 31)})
    with pytest.raises(ValueError, match="feature_bias has 31 values, expected 32"):
        write_net(tmp_path / "x.nnue", bad_size)
    with pytest.raises(ValueError, match="hidden size 24"):
        net_bytes(NetParameters(**{**net.__dict__, "hidden": 24}))
    with pytest.raises(ValueError, match="output bias"):
        net_bytes(NetParameters(**{**net.__dict__, "output_biases": (2**31,)}))
    with pytest.raises(ValueError, match="output_weights has 64 values, expected 128"):
        net_bytes(NetParameters(**{**net.__dict__, "output_biases": (0, 0)}))
    with pytest.raises(ValueError, match="9 output buckets"):
        net_bytes(NetParameters(**{**net.__dict__, "output_biases": (0,) * 9,
                                   "output_weights": array("h", [0] * (9 * 64))}))
    with pytest.raises(ValueError, match="tuple"):
        net_bytes(NetParameters(**{**net.__dict__, "output_biases": [0]}))  # type: ignore[arg-type]


@pytest.mark.parametrize("buckets", [1, 3])
def test_the_version_3_layout_is_the_documented_one(tmp_path: Path, buckets: int) -> None:
    """A king-mirrored net: version 3, the feature set between the bucket count and the description
    length; the body as version 2's.  A plain net is never written as version 3."""
    net = random_net(hidden=16, description="abc", buckets=buckets, feature_set=FEATURES_KING_MIRRORED)
    data = net_bytes(net)
    assert struct.unpack_from("<4sIIIIiiiIII", data) == (b"KNUE", 3, 768, 16, 1, 255, 64, 400, buckets, 1, 3)
    assert data[44:47] == b"abc"
    plain = net_bytes(NetParameters(**{**net.__dict__, "feature_set": FEATURES_PLAIN}))
    assert struct.unpack_from("<I", plain, 4)[0] == (1 if buckets == 1 else 2)
    header_size = 36 if buckets == 1 else 40
    assert data[47:-4] == plain[header_size + 3:-4]          # the same body
    assert read_net(data) == net and read_net(data).feature_set == FEATURES_KING_MIRRORED
    write_net(tmp_path / "v3.nnue", net)
    assert read_net(tmp_path / "v3.nnue") == net
    for feature_set in (2, 2**31):
        header = bytearray(data)
        struct.pack_into("<I", header, 36, feature_set)
        body = bytes(header[:-4])
        with pytest.raises(ValueError, match=f"feature set {feature_set} is not defined"):
            read_net(body + struct.pack("<I", zlib.crc32(body)))
    with pytest.raises(ValueError, match="feature set 2 is not defined"):
        net_bytes(NetParameters(**{**net.__dict__, "feature_set": 2}))


def test_king_mirrored_features() -> None:
    """Each perspective mirrors its inputs by its own king's wing: here White's king is on g1 (files
    e-h) and Black's on c8 (files a-d), so only White's view is mirrored."""
    position = Position("2k5/8/8/8/8/8/1P6/6K1 w - - 0 1")
    white, black, _ = active_features(position, FEATURES_KING_MIRRORED)
    plain_white, plain_black, _ = active_features(position)
    assert black == plain_black
    assert white == [feature ^ 7 for feature in plain_white]
    # White's own pawn on b2 (9) is seen on g2 (14), its own king on g1 (6) on b1 (1).
    assert sorted(white) == sorted([14, 64 * 5 + 1, 384 + 64 * 5 + 61])
    assert file_flip(FEATURES_KING_MIRRORED, 4) == 7 and file_flip(FEATURES_KING_MIRRORED, 3) == 0
    assert file_flip(FEATURES_PLAIN, 7) == 0
    with pytest.raises(ValueError):
        active_features(position, 2)


def test_a_left_right_mirrored_position_has_the_same_king_mirrored_inputs() -> None:
    """Without castling rights a position and its mirror image are the same to a king-mirrored net
    (and not to a plain one, so the equality says something)."""
    mirrored, plain = random_net(feature_set=FEATURES_KING_MIRRORED), random_net()
    plain_differs = 0
    for fen in FENS:
        board = chess.Board(fen)
        board.castling_rights = chess.BB_EMPTY
        flipped = board.transform(chess.flip_horizontal)
        ours = active_features(Position(board.fen()), FEATURES_KING_MIRRORED)
        theirs = active_features(Position(flipped.fen()), FEATURES_KING_MIRRORED)
        assert [sorted(ours[0]), sorted(ours[1]), ours[2]] == [sorted(theirs[0]), sorted(theirs[1]), theirs[2]]
        assert evaluate_reference(mirrored, board) == evaluate_reference(mirrored, flipped), fen
        plain_differs += evaluate_reference(plain, board) != evaluate_reference(plain, flipped)
    assert plain_differs >= len(FENS) - 1


def test_feature_indices() -> None:
    # White pawn on e2 seen by White: own pawn, square 12; by Black: their pawn on the mirrored square e7 (52).
    assert feature_index(0, 0, 0, 12) == 12
    assert feature_index(1, 0, 0, 12) == 384 + 52
    # Black king on e8 (60): for Black its own king on e1.
    assert feature_index(1, 1, 5, 60) == 64 * 5 + 4
    assert feature_index(0, 1, 5, 60) == 384 + 64 * 5 + 60
    white, black, stm = active_features(Position(FENS[0]))
    assert stm == 0 and len(white) == len(black) == 32
    assert sorted(white) == sorted(black)      # the start position is symmetric


def test_a_mirrored_position_evaluates_the_same() -> None:
    net = random_net()
    scores = []
    for fen in FENS:
        mirrored = mirror_fen(fen)
        assert mirror_fen(mirrored) == fen
        score = evaluate_reference(net, fen)
        assert evaluate_reference(net, mirrored) == score, fen
        scores.append(score)
    assert len(set(scores)) == len(scores)     # the net is not constant: the equality above says something


def test_integer_evaluation_by_hand() -> None:
    """One live unit: its value, the clamp, and division truncated toward zero (C's `/`), never floored."""
    hidden = 16
    zeros = array("h", [0] * (INPUTS * hidden))

    def net(bias0: int, out0: int, output_bias: int) -> NetParameters:
        return NetParameters(hidden, QA, QB, SCALE, "", zeros, array("h", [bias0] + [0] * 15),
                             array("h", [out0] + [0] * 31), (output_bias,))

    fen = FENS[0]
    # v = 100: sum = 100 * 100 * 10 = 100000; raw = 100000 / 255 = 392 (392.16); 392 * 400 / 16320 = 9 (9.61).
    assert evaluate_reference(net(100, 10, 0), fen) == 9
    assert evaluate_reference(net(100, -10, 0), fen) == -9          # floor division would give -393, then -10
    assert evaluate_reference(net(0, 0, -100), fen) == -2           # -2.45: toward zero, not -3
    assert evaluate_reference(net(300, 10, 0), fen) == 62           # clamped at QA: raw 2550, 62.5 cp
    assert evaluate_reference(net(-50, 10, 0), fen) == 0            # clamped at 0
