"""KBN v K (eval/mating.pxd): its own score, the side it favours, and the search switch `kbn_mating`
that mates with it against the tablebases' defence (tools.mate_drill)."""

from __future__ import annotations

import chess.syzygy
import pytest
from conftest import SHARED_DATA

from eval.mating import kbn_score
from eval.networks import builtin_network
from search.alphabeta_searcher import AlphaBetaSearcher
from search.board import Position
from tools import mate_drill

SYZYGY = SHARED_DATA / "syzygy"
LIGHT_BISHOP = "KBN5"          # a1 king, b1 bishop (light), c1 knight


def _kbn(lone_king: str, to_move: str = "w") -> Position:
    """White's king a1, light bishop b1, knight c1; Black's king on `lone_king`."""
    board = chess.Board(f"8/8/8/8/8/8/8/{LIGHT_BISHOP} {to_move} - - 0 1")
    board.set_piece_at(chess.parse_square(lone_king), chess.Piece(chess.KING, chess.BLACK))
    return Position(board.fen())


def test_the_lone_king_in_the_bishops_corner_scores_most() -> None:
    right, edge_near_right, centre, wrong = (kbn_score(_kbn(square), 0) for square in ("h1", "h3", "e5", "h8"))
    assert right > edge_near_right > wrong
    assert right > centre
    assert all(1000 <= value < 2000 for value in (right, edge_near_right, centre, wrong))


def test_the_score_is_from_the_side_to_moves_view() -> None:
    assert kbn_score(_kbn("e5", "b"), 0) == -kbn_score(_kbn("e5"), 0)


def test_other_material_keeps_its_value() -> None:
    for fen in ("8/8/8/4k3/8/8/8/KBn5 w - - 0 1",          # bishop against knight
                "8/8/8/4k3/8/8/8/KBNN4 w - - 0 1",         # one piece more
                "8/8/8/4k3/8/8/P7/KBN5 w - - 0 1",         # a pawn more
                None):
        position = Position(fen) if fen else Position()
        assert kbn_score(position, 77) == 77


def test_the_switch_is_adopted_on_by_default() -> None:
    assert AlphaBetaSearcher(hash_mb=1).switches["kbn_mating"] is True


@pytest.mark.slow
@pytest.mark.debian  # ../shared/data's Syzygy tables
def test_the_search_mates_against_the_tables_defence() -> None:
    tables = chess.syzygy.open_tablebase(str(SYZYGY))
    with tables:
        searcher = AlphaBetaSearcher(hash_mb=16)
        fens = mate_drill.random_won_positions("KBNvK", 3, 7, tables)
        drills = [mate_drill.play(fen, searcher, 60_000, tables) for fen in fens]
    assert [drill.end for drill in drills] == ["mate"] * 3
    assert all(drill.mated and 0 < drill.moves <= 50 for drill in drills)


def test_drill_signatures() -> None:
    assert mate_drill.parse_signature("KBNvK") == ([chess.KING, chess.BISHOP, chess.KNIGHT], [chess.KING])
    assert mate_drill.parse_signature("kqvkr") == ([chess.KING, chess.QUEEN], [chess.KING, chess.ROOK])
    for bad in ("KBN", "BNvK", "KXvK", "KKvK"):
        with pytest.raises(ValueError):
            mate_drill.parse_signature(bad)


@pytest.mark.debian  # ../shared/data's Syzygy tables
@pytest.mark.parametrize(("arguments", "message"), [
    (["KBNvK", "--fen", "garbage"], "--fen garbage: "),
    (["KBNvK", "--fen", "8/8/8/8/8/8/8/K6k w - - 0 1"], "not a win for the side to move by the tables"),
    (["KRRRvK", "--positions", "1"], "KRRRvK: the tables given do not hold this ending"),
    (["KXvK"], "X is no piece letter"),
    (["KBNvK", "--on", "no_such_switch"], "no switch no_such_switch"),
])
def test_the_drill_reports_bad_input_in_one_line(arguments: list[str], message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert mate_drill.main([*arguments, "--syzygy", str(SYZYGY)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1


@pytest.mark.debian  # ../shared/data's Syzygy tables
def test_the_drill_drives_the_mcts_searcher_too(capsys: pytest.CaptureFixture[str]) -> None:
    # KQ v K, mate in one for White (Qg7#): any searcher that finds it scores a mate in one move.
    assert mate_drill.main(["KQvK", "--fen", "7k/8/5K2/8/8/8/6Q1/8 w - - 0 1", "--nodes", "2000",
                            "--searcher", "mcts", "--syzygy", str(SYZYGY)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("7k/8/5K2/8/8/8/6Q1/8 w - - 0 1: mate after 1 moves")
    assert out[-1] == "KQvK: mated 1 of 1 at 2,000 nodes a move, in 1.0 moves on average"


def test_the_drill_evaluates_with_the_engines_net_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen: list[object] = []

    def record(fen: str, searcher: AlphaBetaSearcher, nodes: int, tables: object) -> mate_drill.Drill:
        chosen.append(searcher.network)
        return mate_drill.Drill(fen, True, 1, "mate", fen)

    monkeypatch.setattr(mate_drill, "play", record)
    fen = ["--fen", "7k/8/5K2/8/8/8/6Q1/8 w - - 0 1", "--syzygy", str(SYZYGY)]
    assert mate_drill.main(["KQvK", *fen]) == 0
    assert mate_drill.main(["KQvK", "--weighted", *fen]) == 0
    assert chosen[0] is builtin_network() and chosen[1] is None
