"""The pages in a real browser (headless Chromium through Selenium): a whole game played by clicks
against the weakest level, a position analysed with its lines shown, a game reviewed with its
evaluation graph, and no error in the browser's console. Each test saves a screenshot (the README's,
refreshed with KESTREL_WEB_SCREENSHOTS=docs/images)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.web_helpers import (
    ServedApp,
    console_errors,
    driver,  # noqa: F401 (a fixture, used by name)
    screenshot,
    served,
)
from web.app import create_app
from web.validation import ELO_RANGE

STOCKFISH = "/usr/games/stockfish"
FAKE = Path(__file__).resolve().parent / "fake_engines" / "fake_uci.py"
# White promotes, then mates with king and queen: a whole game, a promotion and a mate in about a dozen moves.
PROMOTE_AND_MATE = "8/P6k/8/8/8/8/8/K7 w - - 0 1"

# Each test starts a browser and plays or analyses for seconds: marked slow, they are dealt out first
# (tests/serial_phase.py), not left to end the parallel phase on one worker while the others idle.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server() -> Iterator[ServedApp]:
    with served(create_app()) as app:
        yield app


def waiting(driver: webdriver.Chrome, seconds: float) -> WebDriverWait[webdriver.Chrome]:
    """A wait that retries while the page redraws the elements it reads."""
    return WebDriverWait(driver, seconds, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,))


def texts(driver: webdriver.Chrome, selector: str) -> list[str]:
    """The text of every element matching ``selector``, read at one moment."""
    found: list[str] = driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), (e) => e.textContent)", selector)
    return found


def click_square(driver: webdriver.Chrome, square: str) -> None:
    driver.find_element(By.CSS_SELECTOR, f'#board [data-square="{square}"]').click()


def _after(board: chess.Board, move: chess.Move) -> str:
    """The FEN after `move`, `board` left as it was."""
    board.push(move)
    try:
        return board.fen()
    finally:
        board.pop()


@pytest.mark.debian  # Stockfish chooses the player's moves
def test_a_whole_game_by_clicks(server: ServedApp, driver: webdriver.Chrome, tmp_path: Path) -> None:
    """White (the player, moves chosen by Stockfish) promotes by the picker and mates Kestrel at Skill Level 0."""
    driver.get(server.url + "/play")
    # The UCI_Elo field offers the engine's own range, read from the server.
    level = driver.find_element(By.ID, "level-value")
    WebDriverWait(driver, 30).until(lambda _: level.get_attribute("max") == str(ELO_RANGE[1]))
    assert level.get_attribute("min") == str(ELO_RANGE[0])
    Select(driver.find_element(By.ID, "side")).select_by_value("w")
    Select(driver.find_element(By.ID, "level-kind")).select_by_value("skill")
    level.clear()
    level.send_keys("0")
    driver.find_element(By.ID, "use-clock").click()  # off: the engine thinks a fixed time
    think = driver.find_element(By.ID, "move-time")
    think.clear()
    think.send_keys("0.05")
    driver.find_element(By.ID, "start-fen").send_keys(PROMOTE_AND_MATE)
    driver.find_element(By.ID, "new-game").click()
    board = driver.find_element(By.ID, "board")
    wait = waiting(driver, 20)
    promoted = False
    # The game so far, moves and all: Stockfish, given the history, does not walk into a repetition
    # (from the bare FEN of each position it drew one game by threefold repetition).
    history = chess.Board(PROMOTE_AND_MATE)
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as stockfish:
        for _ in range(60):
            wait.until(lambda d: board.get_attribute("data-movable") == "w"
                       or d.find_element(By.ID, "status").get_attribute("data-result"))
            if driver.find_element(By.ID, "status").get_attribute("data-result"):
                break
            position = chess.Board(board.get_attribute("data-fen"))
            if history.fen() != position.fen():         # Kestrel's reply, found among the legal moves
                history.push(next(m for m in history.legal_moves if _after(history, m) == position.fen()))
            move = stockfish.play(history, chess.engine.Limit(depth=14)).move
            assert move is not None
            click_square(driver, chess.square_name(move.from_square))
            assert driver.find_elements(By.CSS_SELECTOR, "#board .sq.dest, #board .sq.capture-dest"), \
                "the legal moves are shown"
            click_square(driver, chess.square_name(move.to_square))
            if move.promotion:
                role = chess.piece_symbol(move.promotion)
                driver.find_element(By.CSS_SELECTOR, f'.promotion [data-promote="{role}"]').click()
                promoted = True
            history.push(move)
            before = position.fen()
            wait.until(lambda d: board.get_attribute("data-fen") != before)  # noqa: B023 (called at once)
    status = driver.find_element(By.ID, "status")
    assert status.get_attribute("data-result") == "1-0", status.text
    assert "White mates" in status.text
    assert promoted, "the game went through the promotion picker"
    pgn = driver.find_element(By.ID, "pgn").get_attribute("value") or ""
    # Stockfish picks the piece (a rook mates as well as a queen here); the picker offers all four.
    assert '[Result "1-0"]' in pgn and pgn.rstrip().endswith("1-0") and re.search(r"a8=[QRBN]", pgn), pgn
    assert '[Black "Kestrel (Skill 0)"]' in pgn, pgn
    final = chess.Board(board.get_attribute("data-fen"))
    assert final.is_checkmate()
    assert driver.find_elements(By.CSS_SELECTOR, "#board .sq.check"), "the mated king is highlighted"
    screenshot(driver, tmp_path, "web-play.png")
    assert console_errors(driver) == []


def test_takeback_flip_and_a_clock(server: ServedApp, driver: webdriver.Chrome) -> None:
    """With a clock, a move by drag of the mouse is answered; takeback returns to the start; flip turns the board."""
    driver.get(server.url + "/play")
    Select(driver.find_element(By.ID, "level-kind")).select_by_value("skill")
    minutes = driver.find_element(By.ID, "clock-minutes")
    minutes.clear()
    minutes.send_keys("0.5")
    driver.find_element(By.ID, "new-game").click()
    board = driver.find_element(By.ID, "board")
    wait = waiting(driver, 20)
    wait.until(lambda d: board.get_attribute("data-movable") == "w")
    # The squares are redrawn when a piece is picked up: aim at the board, a square's centre from its middle.
    width = board.size["width"]

    def centre(file: int, row: int) -> tuple[int, int]:
        return int((file + 0.5 - 4) * width / 8), int((row + 0.5 - 4) * width / 8)

    actions = webdriver.ActionChains(driver)
    actions.move_to_element_with_offset(board, *centre(4, 6)).click_and_hold()
    actions.move_to_element_with_offset(board, *centre(4, 5)).move_to_element_with_offset(board, *centre(4, 4))
    actions.release().perform()
    wait.until(lambda d: len(texts(d, "#moves .move")) == 2)
    assert texts(driver, "#moves .move")[0] == "e4"
    wait.until(lambda d: board.get_attribute("data-movable") == "w")
    wait.until(lambda d: "running" in (d.find_element(By.CSS_SELECTOR, '.clock[data-color="w"]').get_attribute("class")
                                       or ""))
    driver.find_element(By.ID, "takeback").click()
    wait.until(lambda d: not texts(d, "#moves .move"))
    assert chess.Board(board.get_attribute("data-fen")) == chess.Board()
    first = board.find_element(By.CSS_SELECTOR, ".sq").get_attribute("data-square")
    driver.find_element(By.ID, "flip").click()
    assert (first, board.find_element(By.CSS_SELECTOR, ".sq").get_attribute("data-square")) == ("a8", "h1")
    driver.find_element(By.ID, "resign").click()
    wait.until(lambda d: d.find_element(By.ID, "status").get_attribute("data-result") == "0-1")
    assert "White resigns" in driver.find_element(By.ID, "status").text
    assert console_errors(driver) == []


def test_a_fen_analysed_and_a_game_reviewed(server: ServedApp, driver: webdriver.Chrome, tmp_path: Path) -> None:
    driver.get(server.url + "/analyse")
    wait = waiting(driver, 30)
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    Select(driver.find_element(By.ID, "multipv")).select_by_visible_text("3")
    box = driver.find_element(By.ID, "fen")
    box.clear()
    box.send_keys(fen)
    driver.find_element(By.ID, "load-fen").click()
    wait.until(lambda d: d.find_element(By.ID, "board").get_attribute("data-fen") == fen)
    wait.until(lambda d: len(texts(d, "#lines .line")) == 3
               and int(d.find_element(By.ID, "stats").get_attribute("data-depth") or 0) >= 6)
    lines = texts(driver, "#lines .line")
    assert all(line.split()[0][0] in "+-#" for line in lines), lines
    assert all(" 3. " in line for line in lines), "each line starts with White's third move"
    assert "kn/s" in driver.find_element(By.ID, "stats").text
    bar = driver.find_element(By.CSS_SELECTOR, "#evalbar .white").get_attribute("style") or ""
    assert "height" in bar
    screenshot(driver, tmp_path, "web-analyse.png")

    pgn = driver.find_element(By.ID, "pgn-input")
    pgn.send_keys('[White "A"]\n[Black "B"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 *')
    driver.find_element(By.ID, "load-pgn").click()
    wait.until(lambda d: len(texts(d, "#moves .move")) == 10)
    driver.find_element(By.ID, "review").click()
    wait.until(lambda d: d.find_elements(By.ID, "graph-line")
               and len((d.find_element(By.ID, "graph-line").get_attribute("points") or "").split()) == 11)
    driver.find_element(By.ID, "last").click()
    wait.until(lambda d: texts(d, "#moves .move.current") == ["Be7"])
    driver.find_element(By.ID, "first").click()
    wait.until(lambda d: chess.Board(d.find_element(By.ID, "board").get_attribute("data-fen")) == chess.Board())
    screenshot(driver, tmp_path, "web-review.png")
    driver.find_element(By.ID, "fen").clear()
    driver.find_element(By.ID, "fen").send_keys("not a position")
    driver.find_element(By.ID, "load-fen").click()
    wait.until(lambda d: "bad FEN" in d.find_element(By.ID, "notice").text)
    # The one 400 answer the page asked for is logged by the browser; nothing else may be.
    errors = [e for e in console_errors(driver) if "/api/position" not in e or "400" not in e]
    assert errors == []


def test_an_engine_that_dies_is_reported_and_the_game_goes_on(driver: webdriver.Chrome) -> None:
    """A fake engine that crashes on its second move: the page says so, a new engine answers, the game goes on."""
    with served(create_app([sys.executable, str(FAKE), "crash", "1"], max_engines=1)) as fake:
        driver.get(fake.url + "/play")
        driver.find_element(By.ID, "use-clock").click()
        driver.find_element(By.ID, "new-game").click()
        board = driver.find_element(By.ID, "board")
        wait = waiting(driver, 30)
        for source, target, plies in (("e2", "e4", 2), ("d2", "d4", 4)):
            wait.until(lambda d: board.get_attribute("data-movable") == "w")
            click_square(driver, source)
            click_square(driver, target)
            wait.until(lambda d: len(texts(d, "#moves .move")) == plies)  # noqa: B023 (called at once)
        notice = driver.find_element(By.ID, "notice").text
        assert notice.startswith("The engine failed: the engine stopped while thinking") and "it plays on" in notice
        assert texts(driver, "#moves .move")[:3] == ["e4", "a5", "d4"], "the fake plays its first move by UCI text"
        errors = [e for e in console_errors(driver) if not ("/api/move" in e and "503" in e)]
        assert errors == []
