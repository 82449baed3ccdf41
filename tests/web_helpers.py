"""Shared by the web tests: an aiohttp application served from a thread on a free port, and headless
Chromium driven by Selenium (Debian's chromium and chromedriver)."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
REPO = Path(__file__).resolve().parent.parent
# Set to a folder (docs/images) to refresh the README's screenshots from the browser tests.
SCREENSHOTS_ENV = "KESTREL_WEB_SCREENSHOTS"


class ServedApp:
    """``app`` on 127.0.0.1 at a free port, its loop in a daemon thread."""

    def __init__(self, app: web.Application) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.port = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        if not self.ready.wait(30):
            raise RuntimeError("the web server did not start")
        self.url = f"http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.runner = web.AppRunner(self.app, handle_signals=False)
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.port = self.runner.addresses[0][1]
        self.ready.set()
        self.loop.run_forever()

    def call(self, coroutine: Any) -> Any:
        """Run a coroutine on the server's loop (to inspect its state)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(30)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@contextmanager
def served(app: web.Application) -> Iterator[ServedApp]:
    server = ServedApp(app)
    try:
        yield server
    finally:
        server.close()


def chromium(profile: Path) -> webdriver.Chrome:
    """Headless Chromium with its own profile folder (tests may run side by side)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,900", f"--user-data-dir={profile}", "--no-first-run",
                     "--disable-extensions", "--disable-background-networking"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    """A fresh headless Chromium for one test (import this fixture into the test module)."""
    browser = chromium(tmp_path / "profile")
    try:
        yield browser
    finally:
        browser.quit()


def console_errors(driver: webdriver.Chrome) -> list[str]:
    """The browser console's errors since the last call."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def screenshot(driver: webdriver.Chrome, tmp_path: Path, name: str) -> Path:
    """Save a PNG of the page under tmp_path, and into $KESTREL_WEB_SCREENSHOTS when it is set."""
    path = tmp_path / name
    assert driver.save_screenshot(str(path)), f"no screenshot {name}"
    folder = os.environ.get(SCREENSHOTS_ENV)
    if folder:
        target = Path(folder)
        target = target if target.is_absolute() else REPO / target
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / name)
    return path
