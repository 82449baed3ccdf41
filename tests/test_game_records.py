"""The compact game format (tools/game_records.py): writing, reading, replaying, filtering."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

from search.board.position import Position
from tools import datagen, game_records
from tools.game_records import FLAG_IN_CHECK, FLAG_MATE, FLAG_NOISY, Filters
from tools.nnue_data import RESULT_DRAW, RESULT_LOSS, RESULT_WIN, pack, read_records


def random_game(seed: int, plies: int = 80) -> tuple[str, list[str]]:
    """A random legal game (python-chess plays it), with promotions and castling now and then."""
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(rng.randint(0, 6)):
        board.push(rng.choice(list(board.legal_moves)))
    start = board.fen()
    moves = []
    while len(moves) < plies and not board.is_game_over():
        move = rng.choice(list(board.legal_moves))
        moves.append(move.uci())
        board.push(move)
    return start, moves


def test_games_round_trip_and_concatenate() -> None:
    games = []
    for seed in range(40):
        start, moves = random_game(seed)
        scores = [(i * 97) % 4001 - 2000 for i in range(len(moves))]
        games.append((start, seed % 3, moves, scores))
    data = b"".join(game_records.pack_game(*game) for game in games)
    back = list(game_records.iter_games(data))
    assert [(g.start_fen, g.result, list(g.moves), list(g.scores)) for g in back] == games
    # 4 bytes a ply and 38 a game.
    assert len(data) == sum(game_records.GAME_HEADER_SIZE + 4 * len(g[2]) for g in games)


def test_every_move_code_round_trips() -> None:
    for source in range(64):
        for target in range(64):
            for promotion in "nbrq" if source != target else "":
                text = chess.square_name(source) + chess.square_name(target)
                assert game_records.decode_move(game_records.encode_move(text)) == text
                assert game_records.decode_move(game_records.encode_move(text + promotion)) == text + promotion
    with pytest.raises(ValueError):
        game_records.encode_move("e7e8k")
    with pytest.raises(ValueError):
        game_records.decode_move(0x8000)


def test_mate_scores_are_told_apart_from_centipawns() -> None:
    assert game_records.encode_score("cp", 35) == 35
    assert game_records.encode_score("cp", 99999) == game_records.CP_LIMIT
    for moves in (1, 2, 17, -1, -3):
        score = game_records.encode_score("mate", moves)
        assert game_records.is_mate_score(score) and (score > 0) == (moves > 0)
    assert game_records.encode_score("mate", 1) > game_records.encode_score("mate", 2)
    assert not game_records.is_mate_score(game_records.encode_score("cp", -20000))


def test_corrupt_data_is_refused_where_it_starts(tmp_path: Path) -> None:
    start, moves = random_game(3)
    one = game_records.pack_game(start, RESULT_WIN, moves, [0] * len(moves))
    with pytest.raises(ValueError, match="cut short"):
        list(game_records.iter_games(one + one[:-1]))
    with pytest.raises(ValueError, match="no game starts at byte"):
        list(game_records.iter_games(one + b"XX" + one[2:]))
    # scan() gives the whole games at the front: where a resumed writer cuts.
    path = tmp_path / "a.kgame"
    path.write_bytes(one * 3 + one[:50])
    assert game_records.scan(str(path)) == (3, 3 * len(moves), 3 * len(one))


def test_replayed_positions_carry_their_flags() -> None:
    # 1. e4 d5 2. exd5 Qxd5 3. Nc3 Qe5+ 4. Be2 ... then a promotion from a crafted start.
    game = game_records.Game(chess.STARTING_FEN, RESULT_DRAW, ("e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5e5", "f1e2"),
                             (10, -5, 30, 0, 12, 31990, -20))
    samples = list(game_records.samples(game))
    assert [s.flags for s in samples] == [0, 0, FLAG_NOISY, FLAG_NOISY, 0, FLAG_MATE, FLAG_IN_CHECK]
    assert [s.result for s in samples] == [RESULT_DRAW] * 7
    assert samples[2].fen == chess.Board("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").fen()
    promotion = game_records.Game("8/P6k/8/8/8/8/8/K7 w - - 0 1", RESULT_WIN, ("a7a8q",), (900,))
    [sample] = game_records.samples(promotion)
    assert sample.flags == FLAG_NOISY and sample.result == RESULT_WIN
    # Black to move sees White's win as its loss.
    black = game_records.Game("8/8/8/8/8/8/p6K/k7 b - - 0 1", RESULT_WIN, ("a1b1",), (-700,))
    assert next(game_records.samples(black)).result == RESULT_LOSS


def test_an_illegal_move_in_a_record_is_an_error() -> None:
    game = game_records.Game(chess.STARTING_FEN, RESULT_DRAW, ("e2e5",), (0,))
    with pytest.raises(ValueError, match="illegal move e2e5"):
        list(game_records.samples(game))


def test_filters_pick_training_positions() -> None:
    sample = game_records.Sample(chess.STARTING_FEN, 20, RESULT_WIN, 10, 0)
    assert Filters().keeps(sample)
    assert not Filters(min_ply=11).keeps(sample)
    for flag in (FLAG_IN_CHECK, FLAG_NOISY, FLAG_MATE):
        flagged = game_records.Sample(sample.fen, sample.score, sample.result, sample.ply, flag)
        assert not Filters().keeps(flagged)
    noisy = game_records.Sample(sample.fen, 20, RESULT_WIN, 10, FLAG_NOISY | FLAG_IN_CHECK)
    assert Filters(keep_checks=True, keep_noisy=True).keeps(noisy)


def test_is_capture_knows_en_passant() -> None:
    position = Position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    assert game_records.is_capture(position, "e5d6")
    assert not game_records.is_capture(position, "e5e6")
    position = Position("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 2")
    assert game_records.is_capture(position, "e4d5")
    assert not game_records.is_capture(position, "e1d1")


def test_merge_refuses_bytes_that_are_not_records(tmp_path: Path) -> None:
    noise = tmp_path / "noise.kpos"
    noise.write_bytes(random.Random(1).randbytes(32 * 50))
    with pytest.raises(ValueError, match="record 0: .*not a valid .kpos file"):
        datagen.merge([str(noise)], str(tmp_path / "out.kpos"), dedup=False, shuffle=False, seed=1)
    good = tmp_path / "good.kpos"
    good.write_bytes(pack(chess.STARTING_FEN, 5, RESULT_DRAW) * 3)
    assert datagen.merge([str(good)], str(tmp_path / "out.kpos"), dedup=True, shuffle=False, seed=1) == (3, 0, 1)
    assert [r.score for r in read_records(str(tmp_path / "out.kpos"))] == [5]
