"""The tournament runner's live page (-web PORT): what it computes from the run, and a short run watched
in headless Chromium, its standings and SPRT updating and a board in progress shown."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO

import chess
import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.web_helpers import (
    console_errors,
    driver,  # noqa: F401 (a fixture, used by name)
    screenshot,
    served,
)
from tournaments.config import EngineConfig, SprtConfig, TournamentConfig
from tournaments.observe import MoveUpdate
from tournaments.state import FinishedGame
from tournaments.timecontrol import TimeControl
from web.live import LiveRun, create_live_app


def config(names: list[str], sprt: bool = True) -> TournamentConfig:
    engines = [EngineConfig(name=name, command=["x"], tc=TimeControl(base=10.0)) for name in names]
    return TournamentConfig(engines=engines, sprt=SprtConfig(0.0, 10.0) if sprt else None)


def game(index: int, white: str, black: str, result: str) -> FinishedGame:
    return FinishedGame(index, index // 2, 1, white, black, index // 2, result, "normal", "mate", 40)


def test_live_run_figures() -> None:
    games = [game(0, "A", "B", "1-0"), game(1, "B", "A", "1/2-1/2")]
    live = LiveRun(config(["A", "B", "C"]), games, 6)
    assert len(live.llr) == 2
    live.moved(MoveUpdate(2, "A", "C", chess.STARTING_FEN, None, 0, 10.0, 10.0, "w", None))
    games.append(game(2, "A", "C", "0-1"))
    live.finished(games[-1], "[Event \"x\"]\n\n1. f3 e5 0-1\n")
    live.moved(MoveUpdate(3, "C", "A", chess.STARTING_FEN, None, 0, 10.0, 10.0, "w", None))
    snap = live.snapshot()
    assert snap["done"] == 3 and snap["running"] == 1 and snap["playing"][0]["index"] == 3
    rows = {r["name"]: r for r in snap["standings"]}
    assert (rows["A"]["wins"], rows["A"]["losses"], rows["A"]["draws"]) == (1, 1, 1)
    assert (rows["B"]["games"], rows["C"]["games"], rows["C"]["score"]) == (2, 1, 1.0)
    assert snap["crosstable"]["A"] == {"B": "1.5/2", "C": "0/1"} and snap["crosstable"]["C"] == {"A": "1/1"}
    assert snap["headline"]["pentanomial"] == [0, 0, 0, 1, 0], "A's pair with B: a win and a draw"
    assert snap["sprt"]["path"] == live.llr and len(live.llr) == 3
    assert snap["sprt"]["lower"] < snap["sprt"]["llr"] < snap["sprt"]["upper"]
    assert [g["index"] for g in snap["finished"]] == [2, 1, 0] and snap["finished"][0]["pgn"]
    assert live.pgn(2) is not None and live.pgn(0) is None, "only this session's games have their PGN here"
    json.dumps(snap, allow_nan=False)  # no inf or nan reaches the page


def test_live_page_is_read_only() -> None:
    live = LiveRun(config(["A", "B"], sprt=False), [], 2)
    with served(create_live_app(live)) as server:
        with urllib.request.urlopen(server.url + "/state", timeout=10) as response:
            assert json.loads(response.read())["sprt"] is None
        for method, path in (("POST", "/state"), ("POST", "/"), ("DELETE", "/events"), ("GET", "/pgn/1"),
                             ("GET", "/pgn/x"), ("GET", "/static/../live.py")):
            request = urllib.request.Request(server.url + path, method=method, data=b"{}" if method == "POST" else None)
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            assert refused.value.code in (403, 404, 405), (method, path, refused.value.code)


def test_web_option_is_checked(tmp_path: Path) -> None:
    process = subprocess.run([sys.executable, "-m", "tournaments", "-engine", "cmd=x", "-engine", "cmd=y",
                              "-web", "http", "-pgnout", str(tmp_path / "g.pgn")],
                             capture_output=True, text=True, timeout=60)
    assert process.returncode == 2 and "-web takes one port number" in process.stderr, process.stderr


def start_run(command: list[str]) -> tuple[subprocess.Popen[str], str, list[str]]:
    """Start a run with -web 0; its stderr is drained by a thread (kept in the list); returns the page's URL."""
    run = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                           cwd=Path(__file__).resolve().parent.parent)
    assert run.stderr is not None
    lines: list[str] = []
    found: queue.Queue[str] = queue.Queue()

    def drain(stream: IO[str]) -> None:
        for line in stream:
            lines.append(line)
            match = re.match(r"Live page: (http://127\.0\.0\.1:\d+/)", line)
            if match:
                found.put(match.group(1))
        found.put("")

    threading.Thread(target=drain, args=(run.stderr,), daemon=True).start()
    url = found.get(timeout=120)
    assert url, "the run ended before it served its page: " + "".join(lines)
    return run, url, lines


# Its games' sides think in turn (one searching process at a time) and the browser only redraws:
# about one core (9.2 s of CPU in 9.5 s), so it needs a core of its own, not the whole machine.
@pytest.mark.serial(cores=1)
def test_a_run_watched_live(driver: webdriver.Chrome, tmp_path: Path) -> None:
    """Four short games of Kestrel against itself: the page shows a board in progress; standings and LLR grow."""
    pgn = tmp_path / "games.pgn"
    kestrel = [f"cmd={sys.executable}", "arg=-m", "arg=uci_engine"]
    command = [sys.executable, "-m", "tournaments", "-engine", *kestrel, "name=Kestrel-A",
               "-engine", *kestrel, "name=Kestrel-B", "-each", "st=0.1", "-games", "2", "-rounds", "2",
               "-maxmoves", "15", "-sprt", "elo0=0", "elo1=20", "-pgnout", str(pgn), "-web", "0"]
    run, url, stderr = start_run(command)
    try:
        driver.get(url)
        wait = WebDriverWait(driver, 60, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,))
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#playing .game [data-square]"))
        progress = driver.find_element(By.ID, "progress")
        wait.until(lambda d: int(progress.get_attribute("data-done") or 0) >= 2
                   and d.find_elements(By.CSS_SELECTOR, "#playing .game .info"))
        # The page redraws the board and the standings as the games go on: an element found a moment
        # ago may be gone when it is read, so each read is retried (the wait ignores stale elements).
        fen = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#playing .game .board").get_attribute("data-fen"))
        assert chess.Board(fen).is_valid()
        info = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#playing .game .info").text)
        assert re.match(r"game [34], ply \d+", info), info
        engines = wait.until(lambda d: {row.get_attribute("data-engine")
                                        for row in d.find_elements(By.CSS_SELECTOR, "#standings tr[data-engine]")})
        assert engines == {"Kestrel-A", "Kestrel-B"}
        assert "SPRT [0, 20]" in driver.find_element(By.ID, "sprt-text").text
        screenshot(driver, tmp_path, "web-live.png")
        wait.until(lambda d: "the run has ended" in progress.text or int(progress.get_attribute("data-done") or 0) == 4)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#finished button[data-game]")) == 4)
        games = wait.until(lambda d: {row.get_attribute("data-engine"): row.find_elements(By.TAG_NAME, "td")[2].text
                                      for row in d.find_elements(By.CSS_SELECTOR, "#standings tr[data-engine]")})
        assert games == {"Kestrel-A": "4", "Kestrel-B": "4"}
        points = (driver.find_element(By.ID, "llr-path").get_attribute("points") or "").split()
        assert len(points) == 5, "the LLR's start and one point a game"
        driver.find_element(By.CSS_SELECTOR, '#finished button[data-game="1"]').click()
        wait.until(lambda d: '[Round "1.1"]' in d.find_element(By.ID, "pgn").text)
        assert '[White "Kestrel-A"]' in driver.find_element(By.ID, "pgn").text
        assert console_errors(driver) == []
        run.wait(60)
        assert run.returncode == 0, "".join(stderr)
        assert pgn.read_text().count("[Event ") == 4, "the runner alone wrote the PGN, every game once"
    finally:
        if run.poll() is None:
            run.kill()
        run.wait(10)


# One Dask worker plays, its sides in turn: a core of its own, as above.
@pytest.mark.serial(cores=1)
def test_a_dask_run_shows_its_games_in_progress(tmp_path: Path) -> None:
    """With -backend dask the moves come from the workers as Dask events: the page's state shows them."""
    kestrel = [f"cmd={sys.executable}", "arg=-m", "arg=uci_engine"]
    command = [sys.executable, "-m", "tournaments", "-engine", *kestrel, "name=A", "-engine", *kestrel, "name=B",
               "-each", "st=0.1", "-games", "2", "-maxmoves", "15", "-pgnout", str(tmp_path / "g.pgn"),
               "-backend", "dask", "local:1", "-web", "0"]
    run, url, stderr = start_run(command)
    try:
        seen: set[tuple[int, int]] = set()
        deadline = time.monotonic() + 90
        done = 0
        while done < 2 and time.monotonic() < deadline:
            with urllib.request.urlopen(url + "state", timeout=10) as response:
                state = json.loads(response.read())
            done = state["done"]
            seen |= {(g["index"], g["ply"]) for g in state["playing"]}
            time.sleep(0.05)
        assert done == 2, state
        assert any(ply > 0 for _, ply in seen), f"no move of a game in progress reached the page: {seen}"
        assert {index for index, _ in seen} <= {0, 1}
        run.wait(60)
        assert run.returncode == 0, "".join(stderr)
    finally:
        if run.poll() is None:
            run.kill()
        run.wait(10)
