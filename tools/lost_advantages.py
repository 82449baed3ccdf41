"""Advantages an engine did not convert: `python -m tools.lost_advantages PLAYER GAMES.pgn ... [--referee ENGINE]`.

For each finished game of PLAYER that it did not win although its own score reached `--margin`
centipawns, the tool finds the first such move and the move of its highest score, and reports
where the advantage stood and where it went: the material on the board (`RB5 v RN4`: pieces, then pawns, the player's
side first), the material balance, the kind of position (queens, rooks, minor pieces, opposite
bishops, pawns), how many of its own moves the score stayed at or above the margin, and how the
game ended. A second line says how often the margin was reached at all, how many of those games
were won, and how many of the player's losses came after it: a switch that acts only above the
margin can have changed no other game.

With `--referee`, a stronger engine (Stockfish at full strength, say) scores both positions at
`--referee-depth`. A referee that also sees a win (`--agree`, +150 cp by default) says the
advantage was real and the conversion failed: a search question. A referee that sees little says
the player's evaluation invented it: an evaluation question. The tally at the end answers which of
the two a match's lost advantages were.
"""

from __future__ import annotations

import shlex
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import chess
import chess.engine
import chess.pgn

from search.board.position import PAWN_UNITS
from tools.arguments import USAGE_ERROR, ToolParser, fail, parse, readable_file
from tools.clock_stats import read_games
from tools.endgame_misjudged import player_games, scored_moves

PIECE_LETTERS = ((chess.QUEEN, "Q"), (chess.ROOK, "R"), (chess.BISHOP, "B"), (chess.KNIGHT, "N"))


@dataclass(frozen=True)
class Moment:
    """One position after the player's move, as the player scored it."""

    fen: str
    ply: int            # plies played from the game's start position when the move was made
    score: int          # the player's own score for the move, centipawns


@dataclass(frozen=True)
class LostAdvantage:
    """A game PLAYER drew or lost after its score reached the margin."""

    first: Moment               # the first move scored at or above the margin
    peak: Moment                # the highest-scored move (the first of equals)
    moves_above: int            # the player's scored moves at or above the margin
    result: int                 # 0 drawn, -1 lost
    colour: chess.Color
    plies: int                  # the game's length in plies


def material_signature(board: chess.Board, colour: chess.Color) -> str:
    """`RB5 v RN4`: each side's pieces (queens first) and its pawn count, `colour`'s side first."""
    def side(c: chess.Color) -> str:
        pieces = "".join(letter * len(board.pieces(kind, c)) for kind, letter in PIECE_LETTERS)
        return f"{pieces}{len(board.pieces(chess.PAWN, c))}"
    return f"{side(colour)} v {side(not colour)}"


def material_balance(board: chess.Board, colour: chess.Color) -> int:
    """`colour`'s material minus the other side's, in pawns (search/board/material.pxd: 1/3/3/5/9)."""
    return sum(PAWN_UNITS[chess.piece_symbol(kind)]
               * (len(board.pieces(kind, colour)) - len(board.pieces(kind, not colour))) for kind in chess.PIECE_TYPES)


def position_kind(board: chess.Board) -> str:
    """The kind of position by the pieces left: `queens` (any queen), `pawns` (no pieces),
    `opposite bishops` (one bishop each, on different colours, nothing else), `rooks` (rooks and
    nothing else but pawns), `rooks and minors`, `minors`."""
    if board.queens:
        return "queens"
    pieces = board.knights | board.bishops | board.rooks
    if not pieces:
        return "pawns"
    if not board.knights and not board.rooks and all(len(board.pieces(chess.BISHOP, c)) == 1 for c in chess.COLORS):
        light = bool(board.bishops & chess.BB_LIGHT_SQUARES)
        dark = bool(board.bishops & chess.BB_DARK_SQUARES)
        if light and dark:
            return "opposite bishops"
    if board.rooks and not (board.knights | board.bishops):
        return "rooks"
    return "rooks and minors" if board.rooks else "minors"


def numbered_scores(game: chess.pgn.Game, colour: chess.Color) -> Iterator[Moment]:
    """Each scored move of `colour` as a Moment."""
    start = game.board().ply()
    for board, score in scored_moves(game, colour):
        yield Moment(board.fen(), board.ply() - 1 - start, score)


@dataclass
class Conversions:
    """How PLAYER's finished games went, by whether its score ever reached the margin."""

    games: int = 0
    wins: int = 0
    reached: int = 0            # games in which it did
    reached_won: int = 0        # ... and that it won
    losses: int = 0
    losses_after: int = 0       # losses in which it had reached the margin

    @property
    def not_won(self) -> int:
        return self.games - self.wins

    def line(self, margin: int) -> str:
        return (f"reached +{margin} cp in {self.reached} of {self.games} games and won {self.reached_won} of them; "
                f"{self.losses_after} of its {self.losses} losses came after reaching it")


def find(games: Iterable[chess.pgn.Game], player: str, margin: int) -> tuple[list[LostAdvantage], Conversions]:
    """(the lost advantages among PLAYER's finished games that it did not win, the tally of all
    its finished games by the margin)."""
    found: list[LostAdvantage] = []
    tally = Conversions()
    for game, colour, own in player_games(games, player):
        tally.games += 1
        tally.wins += own == 1
        tally.losses += own == -1
        if own == 1:
            # A won game only counts towards the tally: no positions to report, so no FENs.
            reached = any(score >= margin for _, score in scored_moves(game, colour))
            tally.reached += reached
            tally.reached_won += reached
            continue
        first = peak = None
        above = 0
        for moment in numbered_scores(game, colour):
            if moment.score >= margin:
                above += 1
                first = first or moment
            if peak is None or moment.score > peak.score:
                peak = moment
        tally.reached += first is not None
        tally.losses_after += first is not None and own == -1
        if first is not None and peak is not None:
            found.append(LostAdvantage(first, peak, above, own, colour, game.end().ply() - game.ply()))
    return found, tally


# A referee's word on a position for one side: its score in centipawns (mates as +-10,000) and its best
# move, or None where it gave no score.
Referee = Callable[[chess.Board, chess.Color], tuple[int, chess.Move | None] | None]


def open_referee(command: str, depth: int) -> tuple[Referee, Callable[[], None]]:
    """A referee from a UCI engine's command line, searching each position to `depth` on one thread with
    64 MB of hash where it has those options: (the referee, its closer). A finished game scores as the
    rules say."""
    engine = chess.engine.SimpleEngine.popen_uci(shlex.split(command))
    engine.configure({name: value for name, value in (("Threads", 1), ("Hash", 64)) if name in engine.options})

    def judge(board: chess.Board, colour: chess.Color) -> tuple[int, chess.Move | None] | None:
        if board.is_checkmate():
            return (-10_000 if board.turn == colour else 10_000), None
        if board.is_game_over(claim_draw=False):
            return 0, None
        info = engine.analyse(board, chess.engine.Limit(depth=depth))
        pov, pv = info.get("score"), info.get("pv")
        return None if pov is None else (pov.pov(colour).score(mate_score=10_000), pv[0] if pv else None)

    return judge, engine.quit


def report(player: str, found: list[LostAdvantage], conversions: Conversions, margin: int,
           referee: Referee | None, agree: int) -> list[str]:
    """The report's lines: the counts, one line per lost advantage, then the tallies."""
    lines = [f"{player}: {conversions.not_won} games not won; in {len(found)} of them its score reached +{margin} cp",
             f"  {conversions.line(margin)}"]
    kinds: Counter[str] = Counter()
    peak_kinds: Counter[str] = Counter()
    verdicts: Counter[str] = Counter()
    balances: Counter[str] = Counter()
    for loss in found:
        first_board, peak_board = chess.Board(loss.first.fen), chess.Board(loss.peak.fen)
        kind, peak_kind = position_kind(first_board), position_kind(peak_board)
        kinds[kind] += 1
        peak_kinds[peak_kind] += 1
        balance = material_balance(first_board, loss.colour)
        balances["material up" if balance > 0 else "material even" if balance == 0 else "material down"] += 1
        line = (f"  {'drawn' if loss.result == 0 else 'lost'} ({loss.plies} plies): first {loss.first.score:+d} "
                f"at ply {loss.first.ply}, {material_signature(first_board, loss.colour)} ({balance:+d}, {kind}); "
                f"peak {loss.peak.score:+d} at ply {loss.peak.ply}, {material_signature(peak_board, loss.colour)} "
                f"({peak_kind}); {loss.moves_above} moves >= +{margin}")
        if referee is not None:
            first_word, peak_word = referee(first_board, loss.colour), referee(peak_board, loss.colour)
            if first_word is None or peak_word is None:
                line += "; referee: no score"
            else:
                (first_says, _), (peak_says, _) = first_word, peak_word
                line += f"; referee {first_says:+d} / {peak_says:+d}"
                verdicts["real (conversion failed)" if max(first_says, peak_says) >= agree
                         else "invented (evaluation)"] += 1
        lines += [line, f"    first: {loss.first.fen}", f"    peak:  {loss.peak.fen}"]
    for title, tally in (("kind at the first move", kinds), ("balance at the first move", balances),
                         ("kind at the peak", peak_kinds),
                         (f"referee (real: >= +{agree} cp at the first or peak move)", verdicts)):
        if tally:
            lines.append(f"{title}: " + ", ".join(f"{name} {count}" for name, count in tally.most_common()))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.lost_advantages", description=__doc__.split("\n\n")[0])
    parser.add_argument("player", help="the engine's name in the PGN's White/Black tags")
    parser.add_argument("pgn", nargs="+", type=readable_file, help="PGN files with score comments")
    parser.add_argument("--margin", type=int, default=200, help="centipawns that count as an advantage (200)")
    parser.add_argument("--referee", help="a UCI engine's command line to score the positions (/usr/games/stockfish)")
    parser.add_argument("--referee-depth", type=int, default=20, help="the referee's depth (20)")
    parser.add_argument("--agree", type=int, default=150,
                        help="the referee's centipawns that make an advantage real (150)")
    args = parse(parser, argv)
    if args is None:
        return USAGE_ERROR
    if args.margin <= 0 or args.referee_depth <= 0:
        return fail(parser.prog, "--margin and --referee-depth must be above 0")
    found, conversions = find(read_games(args.pgn), args.player, args.margin)
    referee = close = None
    if args.referee is not None:
        try:
            referee, close = open_referee(args.referee, args.referee_depth)
        except (OSError, chess.engine.EngineError, TimeoutError) as problem:
            return fail(parser.prog, f"--referee {args.referee}: cannot start it as a UCI engine ({problem})")
    try:
        lines = report(args.player, found, conversions, args.margin, referee, args.agree)
    except (chess.engine.EngineError, TimeoutError) as problem:
        reason = problem or type(problem).__name__
        return fail(parser.prog, f"--referee {args.referee}: it stopped answering ({reason})")
    finally:
        if close is not None:
            try:
                close()
            except (chess.engine.EngineError, TimeoutError):
                pass                    # it is gone already; the report or its failure stands
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
