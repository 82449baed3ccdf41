"""The human levels as they play: bound to their calibration record, and free of what people who
play against limited engines complain about (no mate with a queen or a rook, a queen left to be
taken, a move no player would make).  Every search here goes through strength.search_at_level,
the code path the engine's `go` takes at a level."""

from __future__ import annotations

import random

import chess
from conftest import UciProcess

from eval.networks import builtin_network
from search.board.position import Position
from search.limits import SearchLimits
from tools import levels_record
from uci_engine.strength import MIN_ELO, StrengthLevel, level_for_elo, new_level_searcher, search_at_level

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}


def level(elo: int) -> StrengthLevel:
    found = level_for_elo(elo)
    assert found is not None
    return found


# ---------------------------------------------------------------- the record

def test_the_levels_play_as_their_record_says() -> None:
    """The engine that would ship plays the levels as uci_engine/levels_record.json says: the same
    built-in net, the same settings, the same moves at the levels' node budgets."""
    record = levels_record.read_record()
    found = levels_record.differences(record, levels_record.levels_signature())
    assert not found, (
        "The levels no longer play as uci_engine/levels_record.json says:\n  " + "\n  ".join(found) + "\n"
        "A new net or a search change moves the levels, and their calibration no longer holds. Either play a "
        "calibration round with this engine (python -m tools.calibrate_levels round NAME; docs/play.md, "
        "'What a net release must do for the levels'), or, if the levels did not move, say why in the record: "
        "python -m tools.calibrate_levels resign --note \"...\"")


def test_the_record_says_what_was_measured_and_with_what() -> None:
    """Every anchor of the curve is in the record, marked measured or not, with what it was measured
    with; the measured ones name their net."""
    record = levels_record.read_record()
    anchors = {entry["elo"]: entry for entry in record["anchors"]}
    curve = record["signed"]["settings"]["curve"]
    assert sorted(anchors) == [anchor["elo"] for anchor in curve]
    for entry in anchors.values():
        assert isinstance(entry["measured"], bool) and entry["with"]
        assert not entry["measured"] or ".nnue" in entry["with"] or "kestrel-" in entry["with"]


def test_a_signature_tells_levels_apart() -> None:
    """The signature is not blind: two levels sign differently, and the same level signs alike twice."""
    one = levels_record.levels_signature(levels=(1350, 1900))
    assert one.moves[1350] != one.moves[1900] or one.nodes[1350] != one.nodes[1900]
    assert levels_record.levels_signature(levels=(1350,)).digest == levels_record.LevelsSignature(
        {1350: one.moves[1350]}, {1350: one.nodes[1350]}).digest


# ---------------------------------------------------------------- mating with a queen or a rook

def random_mating_boards(piece: chess.PieceType, count: int, seed: int) -> list[chess.Board]:
    """White king and `piece` against the bare black king, White to move, legal and not already
    over; the piece not next to the black king (so it cannot simply be taken)."""
    rng = random.Random(seed)
    boards: list[chess.Board] = []
    while len(boards) < count:
        white_king, black_king, square = rng.sample(chess.SQUARES, 3)
        board = chess.Board(None)
        board.set_piece_at(white_king, chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(black_king, chess.Piece(chess.KING, chess.BLACK))
        board.set_piece_at(square, chess.Piece(piece, chess.WHITE))
        if (board.is_valid() and not board.is_game_over() and chess.square_distance(square, black_king) > 1
                and chess.square_distance(white_king, black_king) > 1):
            boards.append(board)
    return boards


def defend(board: chess.Board) -> chess.Move:
    """The lone king's move by a simple rule: take the piece when it can, else stay nearest the centre."""
    def centre_distance(move: chess.Move) -> float:
        return abs(chess.square_file(move.to_square) - 3.5) + abs(chess.square_rank(move.to_square) - 3.5)

    moves = sorted(board.legal_moves, key=lambda move: (not board.is_capture(move), centre_distance(move), move.uci()))
    return moves[0]


def plays_the_mate(elo: int, board: chess.Board, seed: int) -> tuple[bool, str]:
    """Whether `elo` mates from `board` within the 50-move rule; how the game ended."""
    at = level(elo)
    searcher = new_level_searcher(at, builtin_network())
    position = Position(board.fen())
    rng = random.Random(seed)
    start = board.fen()
    while not board.is_game_over() and board.halfmove_clock < 100:
        if board.turn == chess.WHITE:
            result, _ = search_at_level(searcher, position, SearchLimits(), at, rng)
            move = chess.Move.from_uci(result.best_move)
        else:
            move = defend(board)
        board.push(move)
        position.push(move.uci())
    return board.is_checkmate(), f"{start}: {board.result(claim_draw=True)} after {board.ply()} plies at {board.fen()}"


def test_the_weakest_level_and_a_middle_one_mate_with_a_queen_or_a_rook() -> None:
    """K+Q v K and K+R v K from random positions: the weakest level (736 nodes a move) and 1900 mate
    within the 50-move rule against a king that keeps to the centre."""
    for piece, seed in ((chess.QUEEN, 11), (chess.ROOK, 12)):
        for elo, boards in ((MIN_ELO, 3), (1900, 1)):
            for index, board in enumerate(random_mating_boards(piece, boards, seed + elo)):
                mated, how = plays_the_mate(elo, board, seed + index)
                assert mated, f"UCI_Elo {elo} did not mate: {how}"


# ---------------------------------------------------------------- queens and rooks left to be taken

# Each: a queen or a rook attacked, or a careless move that puts it where it is taken for nothing.
EN_PRISE = [
    "r1bqkbnr/pp1ppppp/2n5/8/3QP3/8/PPP2PPP/RNB1KBNR w KQkq - 1 4",    # Qd4 hit by Nc6: Qb4?? or Qe5?? Nx
    "rnbqkb1r/ppp2ppp/3p1n2/4p3/3PP3/5Q2/PPP2PPP/RNB1KBNR w KQkq - 0 4",  # Qf3: Qh3?? Bxh3, Qf5?? Bxf5
    "4k3/pp3ppp/1n6/8/2R5/8/PP3PPP/4K3 w - - 0 1",                      # Rc4 hit by Nb6: Ra4?? Nx, Rc6?? bx
    "2r3k1/5ppp/p7/1p1R4/8/P4N2/1P3PPP/6K1 w - - 0 25",                 # Rd5: Rd8+?? Rxd8; Rxb5?? axb5
]


def hangs(board: chess.Board, colour: chess.Color) -> list[str]:
    """`colour`'s queens and rooks that the other side takes for nothing: attacked by a cheaper piece,
    or attacked and not defended."""
    found = []
    for square in board.pieces(chess.QUEEN, colour) | board.pieces(chess.ROOK, colour):
        value = VALUES[board.piece_type_at(square) or chess.PAWN]
        attackers = board.attackers(not colour, square)
        cheaper = [a for a in attackers if VALUES[board.piece_type_at(a) or chess.PAWN] < value]
        if cheaper or (attackers and not board.attackers(colour, square)):
            found.append(chess.square_name(square))
    return found


def test_a_level_of_1700_or_more_never_leaves_a_queen_or_a_rook_to_be_taken() -> None:
    """Every move the level may play (every line its choice gives a chance) keeps its queens and
    rooks safe for one move."""
    network = builtin_network()
    for elo in (1700, 2100):
        at = level(elo)
        for fen in EN_PRISE:
            board = chess.Board(fen)
            assert not board.is_check()
            searcher = new_level_searcher(at, network)
            _, lines = search_at_level(searcher, Position(fen), SearchLimits(), at, random.Random(1))
            playable = [line.pv[0] for line, chance in zip(lines, at.chances(lines), strict=True) if chance > 0]
            assert playable
            for move in playable:
                after = board.copy()
                after.push_uci(move)
                if not after.is_checkmate():
                    assert not hangs(after, board.turn), f"UCI_Elo {elo} may play {move} in {fen}"


def test_the_en_prise_positions_are_traps() -> None:
    """Each position of the test above has a legal move that leaves a queen or a rook to be taken,
    so the test above could fail."""
    for fen in EN_PRISE:
        board = chess.Board(fen)
        careless = []
        for move in board.legal_moves:
            board.push(move)
            careless += hangs(board, not board.turn)
            board.pop()
        assert careless, fen


# ---------------------------------------------------------------- a weak level's mistakes

def last_lines(lines: list[str]) -> dict[int, tuple[str, int]]:
    """The last complete iteration's lines: multipv number -> (first move, score in cp or mate as 100,000)."""
    found: dict[int, tuple[str, int]] = {}
    depth = None
    for text in lines:
        if " multipv " not in text or " pv " not in text:
            continue
        words = text.split()
        line_depth = int(words[words.index("depth") + 1])
        if line_depth != depth:
            depth, found = line_depth, {}
        kind, value = words[words.index("score") + 1], int(words[words.index("score") + 2])
        found[int(words[words.index("multipv") + 1])] = (
            words[words.index("pv") + 1], value if kind == "cp" else (100_000 if value > 0 else -100_000))
    return found


def test_a_weak_level_plays_one_of_its_best_lines(engine: UciProcess) -> None:
    """Through the engine: at the weakest level the move played is always the first move of one of
    the lines its search reported last (its best few), never worse than its margin, never another
    legal move; and it does not always play the best."""
    at = level(MIN_ELO)
    engine.send("setoption name UCI_LimitStrength value true", f"setoption name UCI_Elo value {MIN_ELO}")
    engine.ready()
    not_best = 0
    italian = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    for fen in (*levels_record.SIGNATURE_POSITIONS, italian):
        for _ in range(6):
            engine.send("ucinewgame", f"position fen {fen}", "go wtime 60000 btime 60000")
            lines = engine.read_until(lambda text: text.startswith("bestmove"))
            best_lines = last_lines(lines)
            move = lines[-1].split()[1]
            assert len(best_lines) == at.lines or len(best_lines) == len(chess.Board(fen).legal_moves)
            scores = {first: score for first, score in best_lines.values()}
            assert move in scores, (fen, move, best_lines)
            assert max(scores.values()) - scores[move] <= at.margin
            not_best += move != best_lines[1][0]
    assert not_best > 0
