"""Can the engine win a won ending? `python -m tools.mate_drill KBNvK --syzygy DIR [--positions N] [--nodes N]`.

Kestrel's alpha-beta searcher (or `--searcher mcts`), at a fixed number of nodes a move and without
tablebases, plays the stronger side of won endings against a perfect defender: the Syzygy tables, which pick the move
that keeps the draw if there is one, else the one that puts the next capture or mate furthest away
(the largest DTZ). The ending is a material signature (`KBNvK`, `KRvK`, `KQvKR`: the stronger
side's men first); the start positions are drawn at random with `--seed`, with the stronger side to
move and the tables calling it won, or given as FENs with `--fen`. A game ends in mate, or is a
failure by the 50-move rule, a threefold repetition, or the defender's capture that leaves a draw.

The searcher evaluates as the engine does, with the built-in net (`--eval-file NET`, or `--weighted`).
It answers whether the search and evaluation know the technique an ending needs: KBN v K cannot be
won without driving the king into a corner of the bishop's colour (the switch `kbn_mating`).
`--off NAME` switches a technique off for the comparison; the figures are per start position.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass

import chess
import chess.syzygy

from eval.networks import builtin_network, load_network
from search.alphabeta_searcher import AlphaBetaSearcher
from search.board import Position
from search.limits import SearchLimits
from search.mcts_searcher import MCTSSearcher
from search.searcher import Searcher
from tools.arguments import USAGE_ERROR, ToolParser, fail, parse


@dataclass(frozen=True)
class Drill:
    """One game of the drill."""

    fen: str                # the start position
    mated: bool
    moves: int              # the stronger side's moves played
    end: str                # how it ended: "mate", "50-move rule", "repetition", "draw by the tables"
    final_fen: str


def parse_signature(signature: str) -> tuple[list[chess.PieceType], list[chess.PieceType]]:
    """`KBNvK` -> ([KING, BISHOP, KNIGHT], [KING]); ValueError for anything else."""
    sides = signature.upper().split("V")
    if len(sides) != 2 or any(side.count("K") != 1 or not side.startswith("K") for side in sides):
        raise ValueError(f"{signature}: a material signature such as KBNvK (one king each, kings first)")
    for letter in "".join(sides):
        if letter.lower() not in chess.PIECE_SYMBOLS[1:]:
            raise ValueError(f"{signature}: {letter} is no piece letter (K Q R B N P)")
    strong, weak = ([chess.Piece.from_symbol(letter).piece_type for letter in side] for side in sides)
    return strong, weak


def random_won_positions(signature: str, count: int, seed: int, tables: chess.syzygy.Tablebase) -> list[str]:
    """`count` legal positions of `signature`, the stronger side (White) to move, that the tables call won."""
    strong, weak = parse_signature(signature)
    rng = random.Random(seed)
    found: list[str] = []
    for _ in range(count * 1000):
        if len(found) == count:
            break
        board = chess.Board(None)
        men = [(kind, chess.WHITE) for kind in strong] + [(kind, chess.BLACK) for kind in weak]
        for (kind, colour), square in zip(men, rng.sample(chess.SQUARES, len(men)), strict=True):
            board.set_piece_at(square, chess.Piece(kind, colour))
        if not board.is_valid() or board.is_game_over() or board.pawns & (chess.BB_RANK_1 | chess.BB_RANK_8):
            continue
        wdl = tables.get_wdl(board)
        if wdl is None:
            raise ValueError(f"{signature}: the tables given do not hold this ending")
        if wdl == 2:
            found.append(board.fen())
    if len(found) < count:
        raise ValueError(f"{signature}: found {len(found)} won positions of the {count} asked for")
    return found


def defend(board: chess.Board, tables: chess.syzygy.Tablebase) -> chess.Move:
    """The defender's best move by the tables: a draw if one is left, else the largest DTZ."""
    def merit(move: chess.Move) -> tuple[int, int]:
        board.push(move)
        try:
            wdl = tables.probe_wdl(board)          # the attacker's view, the attacker to move
            dtz = abs(tables.probe_dtz(board)) if wdl > 0 else 0
        finally:
            board.pop()
        return -wdl, dtz
    return max(board.legal_moves, key=merit)


def play(fen: str, searcher: Searcher, nodes: int, tables: chess.syzygy.Tablebase) -> Drill:
    """One game from `fen`: the searcher attacks at `nodes` a move, the tables defend."""
    board = chess.Board(fen)
    position = Position(fen)
    attacker = board.turn
    moves = 0
    searcher.clear()
    while True:
        if board.is_checkmate():
            return Drill(fen, board.turn != attacker, moves, "mate", board.fen())
        if board.halfmove_clock >= 100:
            return Drill(fen, False, moves, "50-move rule", board.fen())
        if board.is_repetition(3):
            return Drill(fen, False, moves, "repetition", board.fen())
        if board.is_stalemate() or board.is_insufficient_material() or (
                board.turn == attacker and tables.get_wdl(board) in (0, -1, 1, -2)):
            return Drill(fen, False, moves, "draw by the tables", board.fen())
        if board.turn == attacker:
            move = searcher.search(position, SearchLimits(nodes=nodes)).best_move
            moves += 1
        else:
            move = defend(board, tables).uci()
        board.push_uci(move)
        position.push(move)


def main(argv: list[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.mate_drill", description=__doc__.split("\n\n")[0])
    parser.add_argument("signature", help="the ending, stronger side first: KBNvK, KRvK, KQvKR")
    parser.add_argument("--syzygy", required=True, help="a folder of Syzygy tables holding the ending (.rtbw, .rtbz)")
    parser.add_argument("--positions", type=int, default=16, help="random start positions (16)")
    parser.add_argument("--seed", type=int, default=1, help="the random positions' seed (1)")
    parser.add_argument("--fen", action="append", default=[],
                        help="a start position (repeatable; instead of random ones)")
    parser.add_argument("--nodes", type=int, default=100_000,
                        help="the searcher's nodes a move, as `go nodes` counts them: MCTS's are playouts (100,000)")
    parser.add_argument("--searcher", choices=("alphabeta", "mcts"), default="alphabeta",
                        help="the searcher that attacks (alphabeta); MCTS switches its leaves' searches too")
    parser.add_argument("--eval-file", help="a net file to evaluate with (the built-in net, as the engine plays)")
    parser.add_argument("--weighted", action="store_true", help="the weighted evaluation instead of a net")
    parser.add_argument("--off", action="append", default=[], help="a search switch to turn off (repeatable)")
    parser.add_argument("--on", action="append", default=[], help="a search switch to turn on (repeatable)")
    args = parse(parser, argv)
    if args is None:
        return USAGE_ERROR
    if args.positions <= 0 or args.nodes <= 0:
        return fail(parser.prog, "--positions and --nodes must be above 0")
    try:
        tables = chess.syzygy.open_tablebase(args.syzygy)
    except (OSError, ValueError) as problem:
        return fail(parser.prog, f"--syzygy {args.syzygy}: {problem}")
    with tables:
        searcher: AlphaBetaSearcher | MCTSSearcher = (
            MCTSSearcher(hash_mb=16) if args.searcher == "mcts" else AlphaBetaSearcher(hash_mb=16))
        try:
            if not args.weighted:
                searcher.set_network(load_network(args.eval_file)[0] if args.eval_file else builtin_network())
            searcher.configure(**{name: False for name in args.off} | {name: True for name in args.on})
            fens = args.fen or random_won_positions(args.signature, args.positions, args.seed, tables)
            drills = []
            for fen in fens:
                try:
                    board = chess.Board(fen)
                except ValueError as problem:
                    return fail(parser.prog, f"--fen {fen}: {problem}")
                if tables.get_wdl(board) != 2:
                    return fail(parser.prog, f"--fen {fen}: not a win for the side to move by the tables")
                drill = play(fen, searcher, args.nodes, tables)
                print(f"{drill.fen}: {drill.end} after {drill.moves} moves ({drill.final_fen})", flush=True)
                drills.append(drill)
        except (TypeError, ValueError, OSError, chess.syzygy.MissingTableError) as problem:
            return fail(parser.prog, str(problem))
    mates = [d.moves for d in drills if d.mated]
    average = f", in {sum(mates) / len(mates):.1f} moves on average" if mates else ""
    print(f"{args.signature}: mated {len(mates)} of {len(drills)} at {args.nodes:,} nodes a move{average}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
