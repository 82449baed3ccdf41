"""The ``kestrel web`` server without a browser: every bad input refused with a clear message, the
bounds on engines and thinking time, and an engine that crashes reported and replaced."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import chess
import pytest

from tests.web_helpers import ServedApp, served
from uci_engine.options import build_options
from web.app import create_app
from web.cli import is_loopback
from web.engines import POOL_KEY
from web.validation import ELO_RANGE, MAX_HASH_MB, MAX_MULTIPV, MAX_PLIES, MAX_THREADS, parse_level

FAKE = Path(__file__).resolve().parent / "fake_engines" / "fake_uci.py"
KQK = "8/8/8/4k3/8/8/8/4K2Q w - - 0 1"


def post(server: ServedApp, path: str, data: Any, raw: bytes | None = None) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(server.url + path, data=raw if raw is not None else json.dumps(data).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@pytest.fixture(scope="module")
def fake_server() -> Iterator[ServedApp]:
    """The server with a fake engine that crashes on its second move (only input checks reach this one)."""
    with served(create_app([sys.executable, str(FAKE), "crash", "1"], max_engines=2)) as server:
        yield server


@pytest.mark.parametrize(("data", "message"), [
    ({"start": "not a fen"}, "bad FEN"),
    ({"start": "8/8/8/8/8/8/8/8 w - - 0 1"}, "illegal position"),
    ({"start": "4k2R/8/8/8/8/8/8/4K3 w - - 0 1"}, "illegal position: opposite check"),
    ({"start": "x" * 200}, "too long"),
    ({"moves": ["e2e5"]}, "move 1 (e2e5) is not legal"),
    ({"moves": ["e2e4", "e7e5", "zz"]}, "move 3 ('zz') is not a UCI move"),
    ({"moves": "e2e4"}, "moves must be a list"),
    ({"moves": [4]}, "move 1 is not a UCI move"),
    ({"moves": ["g1f3", "g8f6", "f3g1", "f6g8"] * (MAX_PLIES // 4 + 1)}, "too many moves"),
    ({"moves": [], "flag": "x"}, "flag must be w or b"),
    ({"moves": [], "tags": {"Event": 'a"b'}}, "plain text"),
    ({"moves": [], "tags": {"Annotator": "me"}}, "unknown PGN tag"),
])
def test_positions_are_checked(fake_server: ServedApp, data: dict[str, Any], message: str) -> None:
    status, answer = post(fake_server, "/api/position", data)
    assert status == 400, answer
    assert message in answer["error"], answer


def test_position_answer(fake_server: ServedApp) -> None:
    status, answer = post(fake_server, "/api/position", {"moves": ["f2f3", "e7e5", "g2g4", "d8h4"],
                                                         "tags": {"White": "Me"}})
    assert status == 200
    assert answer["outcome"] == {"result": "0-1", "reason": "Black mates"}
    assert answer["check"] == "e1" and answer["legal"] == [] and answer["san"][-1] == "Qh4#"
    assert '[White "Me"]' in answer["pgn"] and '[Result "0-1"]' in answer["pgn"]
    status, answer = post(fake_server, "/api/position", {"start": "4k3/8/8/8/8/8/8/4K2Q w - - 0 1", "flag": "b"})
    assert answer["outcome"] == {"result": "1-0", "reason": "Black loses on time"}
    status, answer = post(fake_server, "/api/position", {"start": "4k3/8/8/8/8/8/8/4K2Q w - - 0 1", "flag": "w"})
    assert answer["outcome"]["result"] == "1/2-1/2", "a bare king cannot win on time"


def test_bodies_that_are_not_json(fake_server: ServedApp) -> None:
    assert post(fake_server, "/api/position", None, raw=b"{not json")[1]["error"] == "the request body is not JSON"
    assert "JSON object" in post(fake_server, "/api/position", [1, 2])[1]["error"]
    status, answer = post(fake_server, "/api/position", None, raw=b'{"pgn": "' + b"x" * 600_000 + b'"}')
    assert status == 413 and "too large" in answer["error"]


@pytest.mark.parametrize(("pgn", "message"), [
    ("", "the PGN is empty"),
    ("1. e4 e5 2. Ke3 *", "bad PGN"),
    ("[Variant \"Atomic\"]\n\n1. e4 *", "variant"),
    ("x" * 300_000, "too long"),
    (7, "the PGN is empty"),
])
def test_pgns_are_checked(fake_server: ServedApp, pgn: Any, message: str) -> None:
    status, answer = post(fake_server, "/api/pgn", {"pgn": pgn})
    assert status == 400 and message in answer["error"], answer


def test_pgn_loads(fake_server: ServedApp) -> None:
    status, answer = post(fake_server, "/api/pgn", {"pgn": '[White "A"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2'})
    assert status == 200
    assert answer["moves"] == ["e2e4", "e7e5", "g1f3", "b8c6"] and answer["headers"]["White"] == "A"


@pytest.mark.parametrize(("data", "message"), [
    ({"moves": [], "level": {"kind": "elo", "value": 900}}, f"UCI_Elo must be between {ELO_RANGE[0]} and"),
    ({"moves": [], "level": {"kind": "skill", "value": 21}}, "Skill Level must be between 0 and 20"),
    ({"moves": [], "level": {"kind": "skill", "value": "3"}}, "value must be a number"),
    ({"moves": [], "level": {"kind": "god"}}, "level kind must be"),
    ({"moves": [], "level": None}, "level must be an object"),
    ({"moves": [], "level": {"kind": "full"}, "movetime": 3600}, "movetime must be between"),
    ({"moves": [], "level": {"kind": "full"}, "clock": {"white": -1, "black": 5}}, "white must be between"),
    ({"moves": [], "level": {"kind": "full"}, "clock": {"white": 5, "black": 5, "increment": 1e9}}, "increment"),
    ({"moves": ["f2f3", "e7e5", "g2g4", "d8h4"], "level": {"kind": "full"}}, "the game is over"),
])
def test_engine_requests_are_checked(fake_server: ServedApp, data: dict[str, Any], message: str) -> None:
    status, answer = post(fake_server, "/api/move", data)
    assert status == 400 and message in answer["error"], answer


def test_the_page_offers_the_levels_the_engine_declares(fake_server: ServedApp) -> None:
    """The play page reads its ranges from /api/levels: the engine's own UCI_Elo and Skill Level
    bounds, both ends accepted and one past them refused."""
    options = build_options()
    with urllib.request.urlopen(fake_server.url + "/api/levels", timeout=60) as response:
        ranges = json.loads(response.read())
    assert ranges == {"elo": [options["UCI_Elo"].min, options["UCI_Elo"].max],
                      "skill": [options["Skill Level"].min, options["Skill Level"].max]}
    for kind, (low, high) in ranges.items():
        assert parse_level({"kind": kind, "value": low}).value == low
        assert parse_level({"kind": kind, "value": high}).value == high
        status, answer = post(fake_server, "/api/move", {"moves": [], "level": {"kind": kind, "value": high + 1}})
        assert status == 400 and f"between {low} and {high}" in answer["error"], answer


def test_a_crashing_engine_is_reported_and_replaced() -> None:
    """The fake engine answers once and dies on its second move: the page hears so, the next request gets a new one."""
    with served(create_app([sys.executable, str(FAKE), "crash", "1"], max_engines=2)) as server:
        crash_and_restart(server)


def crash_and_restart(fake_server: ServedApp) -> None:
    request = {"moves": ["e2e4"], "level": {"kind": "skill", "value": 0}, "movetime": 0.1}
    pool = fake_server.app[POOL_KEY]
    deaths = pool.deaths
    status, first = post(fake_server, "/api/move", request)
    assert status == 200 and chess.Move.from_uci(first["move"]) in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/"
                                                                             "RNBQKBNR b KQkq - 0 1").legal_moves
    status, second = post(fake_server, "/api/move", request)
    assert status == 503 and second["engine_died"] is True and "stopped" in second["error"], second
    assert pool.deaths == deaths + 1
    status, third = post(fake_server, "/api/move", request)
    assert status == 200 and third["move"] == first["move"], "a fresh engine answers as the first did"
    assert len(pool.processes) <= pool.limit


def test_analysis_socket_bounds_and_errors(fake_server: ServedApp) -> None:
    async def talk() -> list[dict[str, Any]]:
        answers = []
        async with aiohttp.ClientSession() as session, session.ws_connect(fake_server.url + "/ws/analyse") as ws:
            for message in ({"type": "analyse", "moves": [], "multipv": MAX_MULTIPV + 1},
                            {"type": "analyse", "moves": [], "threads": MAX_THREADS + 1},
                            {"type": "analyse", "moves": [], "hash": MAX_HASH_MB * 4},
                            {"type": "analyse", "moves": ["e2e5"]},
                            {"type": "launch"}):
                await ws.send_json(message)
                answers.append(await ws.receive_json(timeout=30))
            await ws.send_str("not json")
            answers.append(await ws.receive_json(timeout=30))
        return answers

    answers = asyncio.run(talk())
    assert [a["type"] for a in answers] == ["error"] * 6
    texts = [a["error"] for a in answers]
    assert "multipv must be between 1 and 5" in texts[0]
    assert "threads must be between 1 and 4" in texts[1]
    assert "hash must be between 1 and 256" in texts[2]
    assert "not legal" in texts[3] and "unknown request type 'launch'" in texts[4] and "not JSON" in texts[5]


def test_no_file_outside_the_assets(fake_server: ServedApp) -> None:
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2f..%2fpyproject.toml", "/api/status/x"):
        try:
            with urllib.request.urlopen(fake_server.url + path, timeout=10) as response:
                pytest.fail(f"{path} answered {response.status}")
        except urllib.error.HTTPError as err:
            assert err.code in (403, 404), (path, err.code)
    with urllib.request.urlopen(fake_server.url + "/static/board.js", timeout=10) as response:
        assert b"class ChessBoard" in response.read()


def test_loopback_and_the_command_line_warning() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1") and is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2") and not is_loopback("example.org")
    process = subprocess.run([sys.executable, "-m", "uci_engine", "web", "--port", "70000", "--no-browser"],
                             capture_output=True, text=True, timeout=60)
    assert process.returncode == 2 and "not a port number (0 to 65535): '70000'" in process.stderr, process.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        process = subprocess.run([sys.executable, "-m", "uci_engine", "web", "--port", port, "--no-browser"],
                                 capture_output=True, text=True, timeout=60)
    assert process.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in process.stderr, process.stderr


def test_kestrel_web_serves_and_warns_for_a_wide_host() -> None:
    """`kestrel web --host 0.0.0.0 --port 0 --no-browser` warns, says its URL, and serves the play page."""
    process = subprocess.Popen([sys.executable, "-m", "uci_engine", "web", "--host", "0.0.0.0", "--port", "0",
                                "--no-browser"], stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        warning = process.stderr.readline()
        assert warning.startswith("Warning: --host 0.0.0.0"), warning
        line = process.stderr.readline()
        assert line.startswith("Kestrel web: http://127.0.0.1:"), line
        url = line.split()[2]
        with urllib.request.urlopen(url, timeout=10) as response:
            assert b"<title>Kestrel - play</title>" in response.read()
    finally:
        process.terminate()
        process.wait(10)


def test_draw_offers(fake_server: ServedApp) -> None:
    """The fake engine reports +0.10 for itself: it declines; one that reports -10.00 (mode lost) accepts."""
    with served(create_app([sys.executable, str(FAKE), "good"], max_engines=1)) as good:
        status, answer = post(good, "/api/draw", {"moves": ["e2e4"], "engine_color": "b"})
    assert status == 200 and answer == {"accepted": False, "reason": "the engine declines the draw"}
    status, answer = post(fake_server, "/api/draw", {"moves": ["e2e4"], "engine_color": "black"})
    assert status == 400 and "engine_color must be w or b" in answer["error"]
    status, answer = post(fake_server, "/api/draw", {"moves": ["f2f3", "e7e5", "g2g4", "d8h4"], "engine_color": "b"})
    assert status == 400 and "the game is over" in answer["error"]
    with served(create_app([sys.executable, str(FAKE), "lost"], max_engines=1)) as losing:
        status, answer = post(losing, "/api/draw", {"moves": ["e2e4"], "engine_color": "b"})
        assert status == 200 and answer["accepted"] is True, answer
