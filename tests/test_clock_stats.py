"""tools/clock_stats: clock figures from the runner's PGN, per block of games."""

from __future__ import annotations

from pathlib import Path

import chess.pgn
import pytest

from tools import clock_stats


def write_games(path: Path, lefts: list[float]) -> None:
    """Games of two moves each whose White ends with `left` seconds (the tl= comment)."""
    with path.open("w") as handle:
        for index, left in enumerate(lefts):
            game = chess.pgn.Game()
            game.headers.update(White="A", Black="B", Result="1/2-1/2", TimeControl="1+0.01",
                                Round=str(index + 1))
            node = game.add_variation(chess.Move.from_uci("e2e4"), comment=f"+0.10/5 0.050s, tl={left:.3f}s")
            node.add_variation(chess.Move.from_uci("e7e5"), comment="-0.10/5 0.040s, tl=0.900s")
            print(game, file=handle, end="\n\n")


def test_blocks_split_the_games_in_recorded_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = tmp_path / "run.pgn"
    write_games(pgn, [0.9, 0.9, 0.3, 0.3])
    assert clock_stats.main([str(pgn), "--blocks", "2", "--opening-moves", "1"]) == 0
    out = capsys.readouterr().out
    first, second = out.split("games 3-4")
    assert "games 1-2" in first and "| A | 2 | 0 | 0.90 s" in first
    assert "| A | 2 | 0 | 0.30 s" in second


def test_blocks_must_be_positive(tmp_path: Path) -> None:
    pgn = tmp_path / "run.pgn"
    write_games(pgn, [0.5])
    with pytest.raises(SystemExit):
        clock_stats.main([str(pgn), "--blocks", "0"])
