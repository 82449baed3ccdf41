"""Moves from the standard start position to a book FEN, when a few plies reach it.

Engines without ``setboard`` (Fairy-Max) can only start from the start position,
and a game that begins with its real moves is a better PGN anyway. Books such as
``2moves_v1.epd`` hold positions 4 plies deep, so a short, pruned depth-first
search over python-chess boards finds a move order that reaches them.

The search is iterative deepening on the number of plies. It prunes with a lower
bound on the moves each side still needs: a non-castling move relocates one of
the mover's pieces, and the opponent can only remove pieces by capturing them,
so a side with more misplaced pieces than its remaining moves and the captures
it must suffer can fix is cut off (castling, and rights that must be lost while
the king stays home, adjust the count). With no spare move, only moves of
misplaced pieces are tried. Positions many moves deep are rejected at once by
the same bound, and a node budget keeps any single search short; either way the
caller keeps the FEN.
"""

from __future__ import annotations

import functools

import chess

MAX_PLIES = 8  # deeper books (8mvs_*, 16 plies) keep their FEN: the search would grow too large
NODE_BUDGET = 3_000  # positions per FEN before giving up; every 2moves_v1 line needs far fewer

_KINDS = [(color, piece_type) for color in chess.COLORS for piece_type in chess.PIECE_TYPES]


def _placement(board: chess.Board) -> dict[tuple[bool, int], int]:
    return {kind: board.pieces_mask(kind[1], kind[0]) for kind in _KINDS}


def _key(board: chess.Board) -> str:
    """The position without clocks: pieces, side to move, castling rights, a capturable e.p. square."""
    return board.epd(en_passant="legal")


class _Search:
    """One search for ``target``; ``nodes`` counts positions visited across all depths."""

    def __init__(self, target: chess.Board) -> None:
        self.target_key = _key(target)
        self.target = _placement(target)
        self.target_count = {color: chess.popcount(target.occupied_co[color]) for color in chess.COLORS}
        self.target_rights = target.castling_rights
        self.nodes = 0
        self.failed: set[tuple[str, int]] = set()  # (position, plies left) known not to reach the target

    def slack(self, board: chess.Board, plies_left: int) -> int | None:
        """Spare moves of the side to move, or None if no ``plies_left`` plies can reach the target."""
        if self.target_rights & ~board.castling_rights:
            return None  # castling rights never come back
        mover_slack = 0
        for color in chess.COLORS:
            own_left = (plies_left + 1) // 2 if board.turn == color else plies_left // 2
            captures = chess.popcount(board.occupied_co[color]) - self.target_count[color]
            if captures < 0 or captures > plies_left - own_left:
                return None  # pieces never come back, and only the opponent's moves capture
            misplaced = chess.popcount(self.misplaced(board, color))
            spare = own_left + captures - misplaced + self.castling_allowance(board, color)
            if spare < 0:
                return None
            if color == board.turn:
                mover_slack = spare
        return mover_slack

    def castling_allowance(self, board: chess.Board, color: chess.Color) -> int:
        """Moves that ``misplaced`` miscounts because ``color`` still has rights the target lacks.

        Castling moves two pieces in one move (+1). But if the target keeps the king
        at home, the rights can only go by a king or rook that leaves and comes back,
        two moves that ``misplaced`` does not see (-2).
        """
        lost = board.castling_rights & ~self.target_rights & chess.BB_BACKRANKS
        lost &= chess.BB_RANK_1 if color == chess.WHITE else chess.BB_RANK_8
        if not lost:
            return 0
        king = board.king(color)
        if king is None or not self.target[(color, chess.KING)] & chess.BB_SQUARES[king]:
            return 1
        return -2 if self.target[(color, chess.ROOK)] & lost else 0

    def misplaced(self, board: chess.Board, color: chess.Color) -> int:
        """The squares of ``color``'s pieces that the target does not hold the same piece on."""
        mask = 0
        for piece_type in chess.PIECE_TYPES:
            mask |= board.pieces_mask(piece_type, color) & ~self.target[(color, piece_type)]
        return mask

    def candidates(self, board: chess.Board, plies_left: int, slack: int) -> list[chess.Move]:
        """Legal moves that can still lie on a path; with no slack, each move must fix a piece."""
        moves = list(board.legal_moves)
        if slack > 0:
            return moves
        wrong = self.misplaced(board, board.turn)
        if self.castling_allowance(board, board.turn) < 0:
            # The king or a rook must make a round trip to give up the rights: let them move.
            wrong |= board.kings & board.occupied_co[board.turn] | board.castling_rights & ~self.target_rights
        last = plies_left <= 2  # the mover's final move must land its piece on a target square
        kept = []
        for move in moves:
            if board.is_castling(move) or move.promotion:
                kept.append(move)
                continue
            if not wrong & chess.BB_SQUARES[move.from_square]:
                continue  # moving a piece that already stands right costs a move it lacks
            piece_type = board.piece_type_at(move.from_square)
            assert piece_type is not None
            if last and not self.target[(board.turn, piece_type)] & chess.BB_SQUARES[move.to_square]:
                continue
            kept.append(move)
        return kept

    def search(self, board: chess.Board, plies_left: int, line: list[chess.Move]) -> bool:
        if plies_left == 0:
            return _key(board) == self.target_key
        if self.nodes >= NODE_BUDGET:
            return False
        memo = (_key(board), plies_left)
        if memo in self.failed:
            return False
        slack = self.slack(board, plies_left)
        if slack is None:
            return False
        for move in self.candidates(board, plies_left, slack):
            self.nodes += 1
            board.push(move)
            line.append(move)
            if self.search(board, plies_left - 1, line):
                board.pop()
                return True
            line.pop()
            board.pop()
        self.failed.add(memo)
        return False


@functools.cache
def _path_cached(position: str, max_plies: int) -> tuple[str, ...] | None:
    target = chess.Board(position + " 0 1")
    search = _Search(target)
    parity = 0 if target.turn == chess.WHITE else 1
    for depth in range(parity, max_plies + 1, 2):
        line: list[chess.Move] = []
        if search.search(chess.Board(), depth, line):
            return tuple(move.uci() for move in line)
        if search.nodes >= NODE_BUDGET:
            break
    return None


def path_from_start(fen: str, max_plies: int = MAX_PLIES) -> tuple[str, ...] | None:
    """UCI moves from the start position to ``fen`` (clocks ignored), or None if not found.

    Results are cached, so a run that meets an opening twice searches once.
    """
    try:
        board = chess.Board(fen)
    except ValueError:
        return None
    if board.chess960 or not board.is_valid():
        return None
    return _path_cached(_key(board), max_plies)
