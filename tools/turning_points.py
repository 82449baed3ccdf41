"""Where an engine's lost games turned: `python -m tools.turning_points PLAYER GAMES.pgn ... [--referee ENGINE]`.

A referee (Stockfish at full strength by default) scores the position before and after each of
PLAYER's moves in the games PLAYER lost (`--draws` adds the drawn ones), from the game's start until
the first move after which the referee calls PLAYER lost (`--lost`, -300 cp). The move that cost the
most there, by the referee, is the game's turning point. For each game the tool reports where it
stood (ply, phase, material, the kind of position), the referee's score before and after, the move
the referee preferred, and PLAYER's own score for its move.

The tallies at the end answer where a match is lost: in the opening, the middlegame or the endgame;
by one move that cost `--blunder` cp or more or by a drift of smaller ones; and whether PLAYER saw it
coming. A turning move that PLAYER scored at least `--blind` cp above the referee's score after it
was a move it thought fine: an evaluation or horizon error. One that it scored near the referee's
was a move it knew to be bad and played anyway, so the harm came earlier.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import chess
import chess.engine
import chess.pgn

from search.board.position import PAWN_UNITS
from tools.arguments import USAGE_ERROR, ToolParser, fail, parse, readable_file
from tools.clock_stats import read_games
from tools.endgame_misjudged import player_games
from tools.lost_advantages import Referee, material_signature, open_referee, position_kind
from tools.wdl_fit import comment_score

# A referee's mate score counts as this many centipawns, so that one drop into a mate does not
# outweigh every other figure of a tally.
SCORE_CAP = 1_500
# The pieces' worth for the phase (search/board/material.pxd; pawns do not count): the start position has 62.
PHASE_PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
ENDGAME_MATERIAL = 26       # at most this much of both sides' pieces together is an endgame
OPENING_PLIES = 24          # the game's first 12 moves (the book's included) are the opening


@dataclass(frozen=True)
class TurningPoint:
    """PLAYER's move that cost the most in a game it did not win, by the referee."""

    fen: str                    # the position before the move
    move: str                   # PLAYER's move (SAN)
    best: str                   # the referee's preferred move there (SAN), "" when it named none
    ply: int                    # plies played from the game's start position before the move
    before: int                 # the referee's score for PLAYER before the move, centipawns
    after: int                  # ... and after it
    own: int | None             # PLAYER's own score for the move, None when its comment has none
    result: int                 # 0 drawn, -1 lost
    colour: chess.Color

    @property
    def drop(self) -> int:
        return self.before - self.after


def phase(board: chess.Board, ply: int) -> str:
    """`opening` for the first OPENING_PLIES plies, then `endgame` with at most ENDGAME_MATERIAL of
    pieces on the board (both sides, 3/3/5/9), else `middlegame`."""
    if ply < OPENING_PLIES:
        return "opening"
    material = sum(PAWN_UNITS[chess.piece_symbol(kind)] * len(board.pieces(kind, colour)) for kind in PHASE_PIECES
                   for colour in chess.COLORS)
    return "endgame" if material <= ENDGAME_MATERIAL else "middlegame"


def capped(score: int) -> int:
    return max(-SCORE_CAP, min(SCORE_CAP, score))


def turning_point(game: chess.pgn.Game, colour: chess.Color, result: int, referee: Referee,
                  lost: int) -> TurningPoint | None:
    """The move of `colour` that lost most by the referee, up to the first one after which the
    referee's score is at or below `lost`; None when the referee scored nothing or `colour` made no move."""
    board = game.board()
    start = board.ply()
    worst: TurningPoint | None = None
    said = referee(board, colour)
    for node in game.mainline():
        mover = board.turn
        before = board.copy(stack=False)
        san = board.san(node.move)
        board.push(node.move)
        now = referee(board, colour)
        if mover == colour and said is not None and now is not None:
            best = said[1]
            best_san = before.san(best) if best is not None and before.is_legal(best) else ""
            point = TurningPoint(before.fen(), san, best_san,
                                 before.ply() - start, capped(said[0]), capped(now[0]),
                                 comment_score(node.comment or ""), result, colour)
            if worst is None or point.drop > worst.drop:
                worst = point
            if point.after <= lost:
                break
        said = now
    return worst


def find(games: Iterable[chess.pgn.Game], player: str, referee: Referee, lost: int,
         draws: bool) -> tuple[list[TurningPoint], int]:
    """(the turning points of PLAYER's lost games, and drawn ones with `draws`; the number of such
    games, with or without a turning point)."""
    found: list[TurningPoint] = []
    games_seen = 0
    for game, colour, own in player_games(games, player):
        if own == 1 or (own == 0 and not draws):
            continue
        games_seen += 1
        point = turning_point(game, colour, own, referee, lost)
        if point is not None:
            found.append(point)
    return found, games_seen


def report(player: str, found: list[TurningPoint], games: int, blunder: int, blind: int) -> list[str]:
    """The report's lines: one per game, then the tallies."""
    lines = [f"{player}: {games} games; {len(found)} with a turning point"]
    phases: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for point in found:
        board = chess.Board(point.fen)
        where, kind = phase(board, point.ply), position_kind(board)
        phases[where] += 1
        kinds[kind] += 1
        sizes[f"one move of {blunder} cp or more" if point.drop >= blunder else "a drift of smaller ones"] += 1
        if point.own is None:
            verdict = "no own score"
        elif point.own - point.after >= blind:
            verdict = f"it scored the move {blind} cp or more above the referee (did not see it)"
        else:
            verdict = "it saw it (the harm came earlier)"
        seen[verdict] += 1
        own = "no score" if point.own is None else f"{point.own:+d}"
        lines += [f"  {'drawn' if point.result == 0 else 'lost'}: move {point.ply // 2 + 1} {point.move} "
                  f"(referee {point.before:+d} -> {point.after:+d}, drop {point.drop}; it preferred "
                  f"{point.best or '?'}; own score {own}), {where}, {material_signature(board, point.colour)} "
                  f"({kind})",
                  f"    {point.fen}"]
    for title, tally in (("phase", phases), ("kind", kinds), ("size", sizes), ("seen", seen)):
        if tally:
            lines.append(f"{title}: " + ", ".join(f"{name} {count}" for name, count in tally.most_common()))
    if found:
        drops = sorted(point.drop for point in found)
        lines.append(f"drop: median {drops[len(drops) // 2]} cp, mean {sum(drops) / len(drops):.0f} cp")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.turning_points", description=__doc__.split("\n\n")[0])
    parser.add_argument("player", help="the engine's name in the PGN's White/Black tags")
    parser.add_argument("pgn", nargs="+", type=readable_file, help="PGN files (score comments optional)")
    parser.add_argument("--referee", default="/usr/games/stockfish",
                        help="a UCI engine's command line (/usr/games/stockfish)")
    parser.add_argument("--depth", type=int, default=14, help="the referee's depth (14)")
    parser.add_argument("--lost", type=int, default=-300,
                        help="the referee's centipawns at or below which the game is lost (-300)")
    parser.add_argument("--blunder", type=int, default=150, help="a drop that makes one move a blunder (150)")
    parser.add_argument("--blind", type=int, default=150,
                        help="own score above the referee's that means the player did not see it (150)")
    parser.add_argument("--draws", action="store_true", help="also the drawn games")
    args = parse(parser, argv)
    if args is None:
        return USAGE_ERROR
    if args.depth <= 0 or args.lost >= 0 or args.blunder <= 0 or args.blind <= 0:
        return fail(parser.prog, "--depth, --blunder and --blind must be above 0 and --lost below 0")
    try:
        referee, close = open_referee(args.referee, args.depth)
    except (OSError, chess.engine.EngineError, TimeoutError) as problem:
        return fail(parser.prog, f"--referee {args.referee}: cannot start it as a UCI engine ({problem})")
    try:
        found, games = find(read_games(args.pgn), args.player, referee, args.lost, args.draws)
    except (chess.engine.EngineError, TimeoutError) as problem:
        reason = problem or type(problem).__name__
        return fail(parser.prog, f"--referee {args.referee}: it stopped answering ({reason})")
    finally:
        try:
            close()
        except (chess.engine.EngineError, TimeoutError):
            pass                        # it is gone already; the report or its failure stands
    print("\n".join(report(args.player, found, games, args.blunder, args.blind)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
