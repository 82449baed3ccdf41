"""The Python face of the game model: ``Position``, for tests, tools and the UCI loop.

Everything here holds the GIL and is meant for use between searches; the searchers
work on the C ``Board`` inside it.
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport uint64_t
from libc.string cimport memcpy
from search.board.types cimport (
    Move, MoveList, MOVE_NONE, WHITE, NO_PIECE, MAX_GAME_PLY,
)
from search.board.bitboard cimport popcount
from search.board.material cimport pawn_units
from search.board.board cimport (
    Board, set_fen, get_fen, move_to_uci, do_move, undo_move, repetition_count,
    is_insufficient_material, side_has_insufficient_material, compute_key, drop_old_history,
)
from search.board.movegen cimport generate_legal, generate_noisy, parse_uci_move, is_uci_move_text
from search.board.perft cimport perft as c_perft, perft_until

from typing import Dict, List, Optional

from search.board.board import STARTING_FEN

# Each piece's worth in pawns by its lower-case FEN letter (search/board/material.pxd), for Python's tallies.
PAWN_UNITS: Dict[str, int] = {letter: pawn_units(piece_type) for piece_type, letter in enumerate("pnbrqk")}

# Room kept for the search path on top of the game's history.
cdef int GAME_HISTORY_LIMIT = MAX_GAME_PLY - 256


cdef class PerftStop:
    """A flag that ends a running `Position.divide` from another thread."""

    cdef int flag

    def set(self) -> None:
        self.flag = 1

    @property
    def is_set(self) -> bool:
        return self.flag != 0


cdef class Position:
    """A chess position with its game history.

    >>> p = Position()
    >>> p.push("e2e4")
    >>> p.fen()
    'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
    """

    def __cinit__(self, *args, **kwargs):
        self.board = <Board*>PyMem_Malloc(sizeof(Board))
        if self.board == NULL:
            raise MemoryError()

    def __init__(self, fen: Optional[str] = None, chess960: bool = False) -> None:
        """The start position, or `fen` (ValueError with the reason if it is malformed)."""
        set_fen(self.board, STARTING_FEN if fen is None else fen, chess960)
        self.start_fen = get_fen(self.board)
        self.move_stack = []

    def __dealloc__(self):
        PyMem_Free(self.board)

    def copy(self) -> "Position":
        """An independent copy, history included."""
        cdef Position other = Position.__new__(Position)
        memcpy(other.board, self.board, sizeof(Board))
        other.start_fen = self.start_fen
        other.move_stack = list(self.move_stack)
        return other

    def fen(self) -> str:
        return get_fen(self.board)

    def __repr__(self) -> str:
        return f"Position({self.fen()!r})"

    @property
    def turn(self) -> bool:
        """True when White is to move (as in python-chess)."""
        return self.board.side_to_move == WHITE

    @property
    def key(self) -> int:
        """The Zobrist key of the position."""
        return self.board.key

    def computed_key(self) -> int:
        """The Zobrist key recomputed from scratch (for consistency checks)."""
        return compute_key(self.board)

    @property
    def halfmove_clock(self) -> int:
        return self.board.halfmove_clock

    @property
    def fullmove_number(self) -> int:
        return self.board.fullmove_number

    @property
    def chess960(self) -> bool:
        return bool(self.board.chess960)

    def legal_moves(self) -> List[str]:
        """Legal moves in UCI notation."""
        cdef MoveList moves
        generate_legal(self.board, &moves)
        return [move_to_uci(self.board, moves.moves[i]) for i in range(moves.count)]

    def noisy_moves(self) -> List[str]:
        """Legal captures and promotions (every evasion when in check)."""
        cdef MoveList moves
        generate_noisy(self.board, &moves)
        return [move_to_uci(self.board, moves.moves[i]) for i in range(moves.count)]

    def is_legal(self, uci: str) -> bool:
        return parse_uci_move(self.board, uci) != MOVE_NONE

    def push(self, uci: str) -> None:
        """Make a move given in UCI notation; ValueError if it is malformed or illegal."""
        if not isinstance(uci, str):
            raise ValueError("a move must be a string in UCI notation")
        cdef Move m = parse_uci_move(self.board, uci)
        if m == MOVE_NONE:
            if not is_uci_move_text(uci.strip()):
                raise ValueError(f"malformed move {uci!r}: expected UCI notation such as e2e4 or e7e8q")
            raise ValueError(f"illegal move {uci!r} in {self.fen()}")
        if self.board.game_ply >= GAME_HISTORY_LIMIT:
            # Old records cannot matter for repetitions any more (see drop_old_history).
            drop_old_history(self.board, 200)
        self.move_stack.append(move_to_uci(self.board, m))
        do_move(self.board, m)

    def pop(self) -> str:
        """Take back the last move and return it; IndexError when there is none to take back."""
        if self.board.game_ply == 0 or not self.move_stack:
            raise IndexError("no move to take back")
        undo_move(self.board)
        return self.move_stack.pop()

    def is_check(self) -> bool:
        return self.board.checkers != 0

    def is_checkmate(self) -> bool:
        cdef MoveList moves
        return self.board.checkers != 0 and generate_legal(self.board, &moves) == 0

    def is_stalemate(self) -> bool:
        cdef MoveList moves
        return self.board.checkers == 0 and generate_legal(self.board, &moves) == 0

    def is_insufficient_material(self) -> bool:
        return bool(is_insufficient_material(self.board))

    def has_insufficient_material(self, white: bool) -> bool:
        return bool(side_has_insufficient_material(self.board, 0 if white else 1))

    def is_fifty_moves(self) -> bool:
        """Fifty moves by each side without capture or pawn move (and the game not mated)."""
        cdef MoveList moves
        return self.board.halfmove_clock >= 100 and generate_legal(self.board, &moves) > 0

    def repetition_count(self) -> int:
        """How often this position has occurred in the game, this time included."""
        return repetition_count(self.board)

    def is_repetition(self, count: int = 3) -> bool:
        return repetition_count(self.board) >= count

    def outcome(self) -> Optional[str]:
        """'1-0', '0-1' or '1/2-1/2' when the game is over by the rules (a draw by
        repetition or the 50-move rule counted as claimed), else None."""
        cdef MoveList moves
        if generate_legal(self.board, &moves) == 0:
            if self.board.checkers:
                return "0-1" if self.board.side_to_move == WHITE else "1-0"
            return "1/2-1/2"
        if (is_insufficient_material(self.board) or self.board.halfmove_clock >= 100
                or repetition_count(self.board) >= 3):
            return "1/2-1/2"
        return None

    def perft(self, depth: int) -> int:
        """Leaf count of the legal move tree to `depth` plies."""
        cdef int d = depth
        cdef uint64_t nodes
        with nogil:
            nodes = c_perft(self.board, d)
        return nodes

    def divide(self, depth: int, PerftStop stop=None) -> Dict[str, int]:
        """Perft per root move, as Stockfish prints it for `go perft N`.  With `stop`, another
        thread may end it early: then only the root moves counted in full are in the result."""
        cdef MoveList moves
        cdef int i, d = depth - 1
        cdef uint64_t nodes
        cdef int never = 0
        cdef int* flag = &stop.flag if stop is not None else &never
        result = {}
        if depth < 1:
            return result
        generate_legal(self.board, &moves)
        for i in range(moves.count):
            name = move_to_uci(self.board, moves.moves[i])
            do_move(self.board, moves.moves[i])
            with nogil:
                nodes = perft_until(self.board, d, flag)
            undo_move(self.board)
            if flag[0]:
                break
            result[name] = nodes
        return result

    def piece_at(self, square: int) -> Optional[str]:
        """The piece letter on a square (0 = a1 ... 63 = h8), None when empty."""
        cdef int piece = self.board.squares[square & 63]
        return None if piece == NO_PIECE else "PNBRQKpnbrqk"[piece]

    def squares(self) -> bytes:
        """The piece code of every square, a1 first: 0-5 White's pawn .. king, 6-11 Black's, 12 empty
        (the codes of ``piece_at``'s letters "PNBRQKpnbrqk")."""
        cdef unsigned char codes[64]
        cdef int square
        for square in range(64):
            codes[square] = <unsigned char>self.board.squares[square]
        return codes[:64]

    @property
    def castling_rights(self) -> int:
        """The castling rights as bits: 1 White short, 2 White long, 4 Black short, 8 Black long."""
        return self.board.castling

    @property
    def ep_square(self) -> int:
        """The en-passant target square when an en-passant capture is legal, else 64 (as in the FEN)."""
        return self.board.ep_square

    def piece_counts(self) -> Dict[str, int]:
        """How many pieces of each kind are on the board, by FEN letter (``"P"`` .. ``"K"`` White's,
        ``"p"`` .. ``"k"`` Black's), every letter present."""
        cdef int colour, piece_type
        return {"PNBRQKpnbrqk"[piece_type + 6 * colour]:
                popcount(self.board.by_type[piece_type] & self.board.by_colour[colour])
                for colour in range(2) for piece_type in range(6)}
