"""The repository runs from any checkout: no tracked file names this machine's folders.

The shared data is found beside the checkout (tests/conftest.py's SHARED_DATA), never by an
absolute path; docs/ is left out, as its prose may quote where a figure was measured.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import REPO_ROOT

MACHINE_PATH = b"/" + b"work" + b"/"   # spelt in pieces, so this file does not match itself


def tracked_files() -> list[str]:
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout: no list of tracked files")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True)
    return [name for name in listed.stdout.decode().split("\0") if name]


def test_no_tracked_file_outside_docs_names_a_machine_path() -> None:
    files = [name for name in tracked_files() if not name.startswith("docs/")]
    assert "tests/conftest.py" in files
    offenders = sorted(name for name in files
                       if (REPO_ROOT / name).is_file() and MACHINE_PATH in (REPO_ROOT / name).read_bytes())
    assert not offenders, f"absolute machine paths in: {', '.join(offenders)} (use paths relative to the checkout)"
