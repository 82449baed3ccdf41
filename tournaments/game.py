"""Playing one game between two engine processes.

The runner keeps both clocks: each move is timed from ``go`` to ``bestmove``,
and a side that has not answered by its remaining time plus the margin has
flagged; its process is killed, because it may never answer. Every engine
failure becomes a loss for that engine with the reason in the PGN.
"""

from __future__ import annotations

import asyncio
import datetime
import time
from collections.abc import Callable
from dataclasses import dataclass

import chess
import chess.engine
import chess.pgn

from tournaments.adjudication import Adjudicator, Verdict, open_tablebase, rules_verdict, score_cp, tablebase_verdict
from tournaments.config import PGN_EXTRA_KEYS, PGN_EXTRAS, TournamentConfig
from tournaments.dialogue import DialogueRecorder
from tournaments.engines import EngineFault, EngineProcess, SetupError
from tournaments.observe import MoveUpdate, move_update
from tournaments.openings import Opening
from tournaments.timecontrol import Clock, build_limit

COLOR_NAMES = {chess.WHITE: "White", chess.BLACK: "Black"}

# Fault kind -> (PGN Termination, how the reason starts).
_FAULTS = {
    "crash": ("abandoned", "{side} disconnects"),
    "stall": ("stalled connection", "{side}'s connection stalls"),
    "flag": ("time forfeit", "{side} loses on time"),
    "illegal": ("rules infraction", "{side} makes an illegal move"),
    "malformed": ("rules infraction", "{side} sends a malformed answer"),
}


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: who plays which colour from which opening."""

    index: int  # position in the schedule, from 0
    round: int  # from 1
    pair: int  # games 2k and 2k+1 of an encounter share an opening with colours swapped
    white: str
    black: str
    opening: int  # index into the run's opening list


@dataclass
class GameOutcome:
    """A finished game as the runner records it."""

    spec: GameSpec
    result: str  # "1-0", "0-1", "1/2-1/2" or "*" (neither engine could play)
    termination: str
    reason: str
    pgn: str
    plies: int
    white_faulted: bool = False
    black_faulted: bool = False
    final_fen: str = ""  # for -epdout
    log: str = ""  # the engine dialogue, with -log


def forfeit(side: chess.Color, fault: EngineFault) -> Verdict:
    termination, text = _FAULTS.get(fault.kind, _FAULTS["malformed"])
    reason = text.format(side=COLOR_NAMES[side])
    detail = str(fault)
    if detail:
        reason += f": {detail}"
    return Verdict("0-1" if side == chess.WHITE else "1-0", termination, reason)


def move_comment(score: chess.engine.PovScore | None, color: chess.Color, depth: int | None,
                 elapsed: float, extras: dict[str, str] | None = None) -> str:
    """cutechess-style ``+0.35/12 0.251s`` from the mover's view, then ``-pgnout``'s extra fields.

    The extras follow as ``, key=value`` with the keys fastchess writes
    (``tl=``, ``latency=``, ``n=``, ``sd=``, ``nps=``, ``hashfull=``, ``tbhits=``,
    ``pv="..."``); a field the engine did not report is left out.
    """
    tail = "".join(f", {key}={value}" for key, value in (extras or {}).items())
    text = f"{elapsed:.3f}s"
    if score is None:
        return text + tail
    pov = score.pov(color)
    if pov.is_mate():
        mate = pov.mate()
        assert mate is not None
        value = f"{'+' if mate > 0 else '-'}M{abs(mate)}"
    else:
        cp = pov.score()
        assert cp is not None
        value = f"{cp / 100:+.2f}"
    return f"{value}/{depth if depth is not None else 0} {text}{tail}"


def _extras(fields: list[str], info: chess.engine.InfoDict, clock: Clock, elapsed: float) -> dict[str, str]:
    """The ``-pgnout`` fields of one move, in fastchess's order and spelling."""
    reported = info.get("time")
    pv = info.get("pv")
    values = {"timeleft": f"{clock.remaining:.3f}s" if clock.tc.has_clock else None,
              # Measured minus reported thinking time: what the engine's own clock does not see.
              "latency": f"{elapsed - reported:.3f}s" if reported is not None else None,
              "nodes": info.get("nodes"), "seldepth": info.get("seldepth"), "nps": info.get("nps"),
              "hashfull": info.get("hashfull"), "tbhits": info.get("tbhits"),
              "pv": f'"{" ".join(m.uci() for m in pv)}"' if pv else None}
    return {PGN_EXTRA_KEYS[key]: str(values[key]) for key in PGN_EXTRAS
            if key in fields and values.get(key) is not None}


async def _ensure_started(engine: EngineProcess, timeout: float) -> EngineFault | None:
    if engine.alive:
        return None
    try:
        await engine.start(timeout)
    except SetupError as err:
        # The engine worked at the start of the run; now it does not, so it is a crash.
        await engine.kill()
        return EngineFault("crash", str(err))
    except EngineFault as fault:
        await engine.kill()
        return fault
    return None


async def _prepare(engine: EngineProcess, game_id: object, timeout: float) -> EngineFault | None:
    fault = await _ensure_started(engine, timeout)
    if fault is None:
        try:
            await engine.new_game(game_id, timeout)
        except EngineFault as err:
            await engine.kill()
            fault = err
    return fault


async def _move(engine: EngineProcess, board: chess.Board, limit: chess.engine.Limit, game_id: object,
                timeout: float, clock_bound: bool, pv: bool = False) -> tuple[chess.engine.PlayResult, float]:
    """One engine move and the seconds it took; raises ``EngineFault``."""
    assert engine.protocol is not None
    info = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE | (chess.engine.INFO_PV if pv else chess.engine.INFO_NONE)
    start = time.perf_counter()
    try:
        result = await asyncio.wait_for(engine.protocol.play(board, limit, game=game_id, info=info), timeout)
    except asyncio.TimeoutError:
        if clock_bound:
            raise EngineFault("flag", f"no move after {time.perf_counter() - start:.3f}s") from None
        raise EngineFault("stall", f"no move within {timeout:g}s") from None
    except chess.engine.EngineTerminatedError as err:
        raise EngineFault("crash", str(err)) from None
    except chess.engine.EngineError as err:
        text = str(err)
        kind = "illegal" if "illegal" in text else "malformed"
        raise EngineFault(kind, text) from None
    return result, time.perf_counter() - start


def _new_pgn(config: TournamentConfig, spec: GameSpec, opening: Opening) -> chess.pgn.Game:
    game = chess.pgn.Game()
    h = game.headers
    h["Event"] = config.event
    h["Site"] = config.site
    h["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    h["Round"] = f"{spec.round}.{spec.index + 1}"  # round.game: unique, so a game seen twice is visible
    h["White"] = spec.white
    h["Black"] = spec.black
    h["Result"] = "*"
    tcs = {e.name: e.tc for e in config.engines}
    white_tc, black_tc = tcs[spec.white].pgn_string(), tcs[spec.black].pgn_string()
    if white_tc == black_tc:
        h["TimeControl"] = white_tc
    else:
        h["WhiteTimeControl"] = white_tc
        h["BlackTimeControl"] = black_tc
    start = opening.pgn_board()
    if opening.hidden or opening.fen != chess.STARTING_FEN or opening.chess960:
        game.setup(start)  # FEN and SetUp; also Variant "Chess960" for Chess960 games
    return game


class _Exporter(chess.pgn.StringExporter):
    """python-chess's PGN text, with the moves in fastchess's ``notation=``: SAN, LAN or UCI."""

    def __init__(self, notation: str, comments: bool) -> None:
        super().__init__(headers=True, variations=True, comments=comments)
        self.notation = notation

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.notation == "san":
            super().visit_move(board, move)
            return
        if self.variations or not self.variation_depth:
            if board.turn == chess.WHITE:
                self.write_token(f"{board.fullmove_number}. ")
            elif self.force_movenumber:
                self.write_token(f"{board.fullmove_number}... ")
            self.write_token(_lan(board, move) if self.notation == "lan" else move.uci())
            self.write_token(" ")
            self.force_movenumber = False


def _lan(board: chess.Board, move: chess.Move) -> str:
    """fastchess's long algebraic notation: ``Ng1f3``, ``e4xd5``, ``O-O`` (python-chess writes ``Ng1-f3``)."""
    text = board.lan(move)
    return text if board.is_castling(move) else text.replace("-", "")


# Tags after the Seven Tag Roster in the order fastchess writes them; any other follows.
_TAG_ORDER = ("Event", "Site", "Date", "Round", "White", "Black", "Result", "SetUp", "FEN", "Variant",
              "GameDuration", "GameStartTime", "GameEndTime", "PlyCount", "Termination", "TimeControl",
              "WhiteTimeControl", "BlackTimeControl")


def _pgn_text(config: TournamentConfig, game: chess.pgn.Game) -> str:
    headers = dict(game.headers)
    game.headers.clear()
    for key in sorted(headers, key=lambda k: _TAG_ORDER.index(k) if k in _TAG_ORDER else len(_TAG_ORDER)):
        game.headers[key] = headers[key]
    return game.accept(_Exporter(config.pgn_notation, comments=not config.pgn_min))


def local_time(moment: datetime.datetime) -> str:
    """fastchess's ``GameStartTime``/``GameEndTime``: local time, ISO 8601, and the UTC offset."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S %z")


def duration(seconds: float) -> str:
    """fastchess's ``GameDuration``: whole seconds as HH:MM:SS."""
    whole = int(seconds)
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


async def play_game(config: TournamentConfig, spec: GameSpec, opening: Opening,
                    engines: dict[chess.Color, EngineProcess], time_scale: float = 1.0,
                    watch: Callable[[MoveUpdate], None] | None = None) -> GameOutcome:
    """Play ``spec`` to its end; engines that fault are killed so the caller restarts them.

    ``time_scale`` multiplies the clocks (a slow Dask worker gets more time); the
    PGN keeps the nominal time control. ``watch`` hears of the start position and every move.
    """
    if config.log is None:
        return await _play(config, spec, opening, engines, time_scale, watch)
    with DialogueRecorder(engines) as recorder:
        outcome = await _play(config, spec, opening, engines, time_scale, watch)
    outcome.log = recorder.text()
    return outcome


async def _play(config: TournamentConfig, spec: GameSpec, opening: Opening,
                engines: dict[chess.Color, EngineProcess], time_scale: float,
                watch: Callable[[MoveUpdate], None] | None) -> GameOutcome:
    game_id = object()  # a fresh identity tells python-chess this is a new game
    started = datetime.datetime.now().astimezone()
    start_clock = time.monotonic()
    pgn = _new_pgn(config, spec, opening)
    node: chess.pgn.GameNode = pgn
    board = opening.start_board()
    for ply, uci in enumerate(opening.moves):
        move = board.parse_uci(uci)
        if ply >= opening.hidden:
            node = node.add_variation(move, comment="book")
        board.push(move)

    faulted = {chess.WHITE: False, chess.BLACK: False}
    verdict: Verdict | None = None
    faults = await asyncio.gather(*(_prepare(engines[c], game_id, config.startup_timeout) for c in chess.COLORS))
    white_fault, black_fault = faults[0], faults[1]  # chess.COLORS is (WHITE, BLACK)
    if white_fault and black_fault:
        faulted = {chess.WHITE: True, chess.BLACK: True}
        verdict = Verdict("*", "abandoned", f"Neither engine could start: {white_fault}; {black_fault}")
    elif white_fault or black_fault:
        side = chess.WHITE if white_fault else chess.BLACK
        faulted[side] = True
        verdict = forfeit(side, white_fault or black_fault)  # type: ignore[arg-type]

    clocks = {c: Clock(engines[c].config.tc.scaled(time_scale)) for c in chess.COLORS}
    adjudicator = Adjudicator(config.adjudication)
    tablebase = open_tablebase(config.tb_path) if config.tb_path else None
    if verdict is None:
        verdict = rules_verdict(board)
    if watch is not None:
        watch(move_update(spec.index, spec.white, spec.black, board, clocks, None))
    while verdict is None:
        side = board.turn
        engine, clock = engines[side], clocks[side]
        deadline = clock.deadline()
        timeout = deadline if deadline is not None else config.hang_timeout
        try:
            result, elapsed = await _move(engine, board, build_limit(side, clock, clocks[not side]), game_id,
                                          timeout, deadline is not None, "pv" in config.pgn_extras)
            if result.resigned:
                verdict = Verdict("0-1" if side == chess.WHITE else "1-0", "normal", f"{COLOR_NAMES[side]} resigns")
                break
            if clock.overstepped(elapsed):
                # Answered, but too late: a loss, though the process is healthy and kept.
                verdict = forfeit(side, EngineFault("flag", f"{elapsed:.3f}s used, {deadline:.3f}s allowed"))
                break
            if result.move is None:
                raise EngineFault("malformed", "bestmove without a move in a position with legal moves")
            if not board.is_legal(result.move):
                raise EngineFault("illegal", result.move.uci())
        except EngineFault as fault:
            faulted[side] = True
            await engine.kill()
            verdict = forfeit(side, fault)
            break
        clock.punch(elapsed)
        info = result.info
        comment = move_comment(info.get("score"), side, info.get("depth"), elapsed,
                               _extras(config.pgn_extras, info, clock, elapsed))
        node = node.add_variation(result.move, comment=comment)
        board.push(result.move)
        if watch is not None:
            watch(move_update(spec.index, spec.white, spec.black, board, clocks, info.get("score")))
        adjudicator.record(score_cp(info.get("score"), side))
        verdict = rules_verdict(board)
        if verdict is None and tablebase is not None:
            verdict = tablebase_verdict(board, tablebase, config.tb_pieces, config.tb_ignore50)
        verdict = verdict or adjudicator.verdict(board)

    pgn.headers["Result"] = verdict.result
    if not config.pgn_min:
        pgn.headers["GameDuration"] = duration(time.monotonic() - start_clock)
        pgn.headers["GameStartTime"] = local_time(started)
        pgn.headers["GameEndTime"] = local_time(datetime.datetime.now().astimezone())
    pgn.headers["Termination"] = verdict.termination
    pgn.headers["PlyCount"] = str(len(board.move_stack) - opening.hidden)
    node.comment = f"{node.comment}, {verdict.reason}" if node.comment else verdict.reason
    # "min" keeps the tags (Termination says why it ended) and drops the per-move comments.
    text = _pgn_text(config, pgn)
    return GameOutcome(spec, verdict.result, verdict.termination, verdict.reason, text,
                       adjudicator.plies, faulted[chess.WHITE], faulted[chess.BLACK], _final_epd(board))


def _final_epd(board: chess.Board) -> str:
    """The final position as EPD with its move counters (``-epdout``)."""
    return board.epd(hmvc=board.halfmove_clock, fmvn=board.fullmove_number)

