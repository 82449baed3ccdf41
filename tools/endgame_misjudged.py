"""Endgames an engine misjudged, by the tables: `python -m tools.endgame_misjudged PLAYER GAMES.pgn ... --syzygy DIR`.

For each finished game of PLAYER (its name in the White or Black tag), the first position that
PLAYER's own move leaves with no more men than the tables hold is probed, and PLAYER's score for
that move (the `+1.23/12` comment that the runner, fastchess and cutechess write) is set beside the
tables' verdict. A score of at least `--margin` centipawns where the tables say draw or loss is an
endgame PLAYER called won and walked into; the mirror case is one it called lost. Mates and moves
without a score are not judged. A second line counts the drawn games in which PLAYER's score ever
reached `--margin`: advantages it could not convert, with or without the tables' help.

It answers one question about a match: does the evaluation know which endgames are drawn? A net
that counts material calls KNN v K or a bishop with the wrong rook pawn won, and the search then
trades into them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import chess
import chess.pgn

from tools.arguments import USAGE_ERROR, ToolParser, fail, parse, readable_file
from tools.clock_stats import read_games
from tools.wdl_fit import WHITE_OUTCOME, comment_score
from uci_engine.tablebases import Tablebases


@dataclass(frozen=True)
class Entry:
    """The first table position a player's move reached in one game."""

    fen: str            # after the player's move
    score: int          # the player's score for that move, centipawns, its own view
    truth: int          # the tables' verdict from the player's view: 1 win, 0 draw (cursed or blessed too), -1 loss
    result: int         # the game's result from the player's view


@dataclass(frozen=True)
class Summary:
    games: int                      # finished games of the player
    entries: list[Entry]            # one per game that reached the tables by the player's move
    draws: int
    draws_called_won: int           # drawn games in which the player's score reached the margin

    def called_won(self, margin: int) -> list[Entry]:
        return [e for e in self.entries if e.score >= margin and e.truth <= 0]

    def called_lost(self, margin: int) -> list[Entry]:
        return [e for e in self.entries if e.score <= -margin and e.truth >= 0]


def scored_moves(game: chess.pgn.Game, colour: chess.Color) -> Iterator[tuple[chess.Board, int]]:
    """(the board after the move, the mover's score in centipawns) for each scored move of `colour`.
    One board walks the game (a node's own board() replays it from the start); the board yielded is
    that one, valid until the next step."""
    board = game.board()
    for node in game.mainline():
        mover = board.turn
        board.push(node.move)
        score = comment_score(node.comment or "") if mover == colour else None
        if score is not None:
            yield board, score


def player_colour(game: chess.pgn.Game, player: str) -> chess.Color | None:
    """The colour PLAYER had in `game` (its name in the White or Black tag), None where it played
    neither side or both."""
    colours = [c for c, tag in ((chess.WHITE, "White"), (chess.BLACK, "Black")) if game.headers.get(tag) == player]
    return colours[0] if len(colours) == 1 else None


def player_games(games: Iterable[chess.pgn.Game], player: str) -> Iterator[tuple[chess.pgn.Game, chess.Color, int]]:
    """(game, PLAYER's colour, PLAYER's result: 1 won, 0 drawn, -1 lost) for each finished game PLAYER played."""
    for game in games:
        outcome = WHITE_OUTCOME.get(game.headers.get("Result", "*"))
        colour = player_colour(game, player)
        if outcome is not None and colour is not None:
            yield game, colour, outcome if colour == chess.WHITE else -outcome


def summarise(games: Iterable[chess.pgn.Game], player: str, probe: Callable[[str], int | None],
              max_men: int, margin: int) -> Summary:
    """`probe`: fen -> the side to move's WDL, 2 / 0 / -2 with the 50-move rule applied, None where the
    tables do not hold the position (`Tablebases.wdl_prober(True)`)."""
    count = draws = draws_called_won = 0
    entries: list[Entry] = []
    for game, colour, own_result in player_games(games, player):
        count += 1
        best = None
        entry = None
        for board, score in scored_moves(game, colour):
            best = score if best is None else max(best, score)
            if entry is None and chess.popcount(board.occupied) <= max_men and not board.castling_rights:
                fen = board.fen()
                wdl = probe(fen)                       # the side to move's view: the opponent's
                if wdl is None:
                    continue
                entry = Entry(fen, score, -wdl // 2, own_result)
        if entry is not None:
            entries.append(entry)
        if own_result == 0:
            draws += 1
            draws_called_won += best is not None and best >= margin
    return Summary(count, entries, draws, draws_called_won)


def main(argv: list[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.endgame_misjudged", description=__doc__.split("\n\n")[0])
    parser.add_argument("player", help="the engine's name in the PGN's White/Black tags")
    parser.add_argument("pgn", nargs="+", type=readable_file, help="PGN files with score comments")
    parser.add_argument("--syzygy", required=True, help="a folder of Syzygy tables (.rtbw)")
    parser.add_argument("--margin", type=int, default=200, help="centipawns that count as a claim (200)")
    args = parse(parser, argv)
    if args is None:
        return USAGE_ERROR
    if args.margin <= 0:
        return fail(parser.prog, "--margin must be above 0")
    tables = Tablebases()
    problems = tables.open(args.syzygy)
    probe = tables.wdl_prober(True)
    if probe is None:
        return fail(parser.prog, f"--syzygy {args.syzygy}: no Syzygy tables there (.rtbw files)"
                    + "".join(f"; {problem}" for problem in problems))
    max_men = tables.max_pieces
    summary = summarise(read_games(args.pgn), args.player, probe, max_men, args.margin)
    won, lost = summary.called_won(args.margin), summary.called_lost(args.margin)
    print(f"{args.player}: {summary.games} games, {len(summary.entries)} reached the tables ({max_men} men) "
          f"by its own move; there it called {len(won)} won (>= +{args.margin} cp) that the tables do not, "
          f"and {len(lost)} lost (<= -{args.margin} cp) that they do not")
    print(f"{args.player}: {summary.draws} draws, in {summary.draws_called_won} of them its score reached "
          f"+{args.margin} cp")
    for label, entries in (("called won", won), ("called lost", lost)):
        for e in entries:
            verdict = {1: "win", 0: "draw", -1: "loss"}[e.truth]
            outcome = {1: "won", 0: "drawn", -1: "lost"}[e.result]
            print(f"  {label}: {e.score:+d} cp, tables: {verdict}, game {outcome}: {e.fen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
