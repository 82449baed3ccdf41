"""Shared test helpers.

Test data that is too large for the repository (perft suites, opening sets) lives in
``<repo>/../shared/data``; a missing file is a failure, never a skip.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def shared_data_path(name: str) -> Path:
    """The path of `name` in the shared data folder; fails the test if it is not there."""
    path = SHARED_DATA / name
    if not path.is_file():
        pytest.fail(f"shared test data {name!r} not found: expected it at {path} "
                    f"(the folder ../shared/data next to the repository {REPO_ROOT})", pytrace=False)
    return path


@pytest.fixture
def shared_data() -> Callable[[str], Path]:
    """The `shared_data_path` helper, for tests that prefer a fixture to an import."""
    return shared_data_path
