"""Test-only Cython modules (tests/_*.pyx), built with the core.

Some tests reach C functions of the core that have no Python face (a node pool built by hand,
say).  Their helpers are Cython here in tests/, not in the engine.  setup.py builds them in place
beside the lab's kernels (`pip install -e .`, `python setup.py build_ext --inplace`), once, with
the core's own compiler directives; a wheel never holds them.  Parallel test workers only import
them, so no two of them compile the same file at once.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).resolve().parent


def load(name: str) -> ModuleType:
    """The compiled module tests/`name`.pyx, imported as `tests.<name>`; a clear failure when the
    checkout has not built it."""
    qualified = f"tests.{name}"
    if qualified in sys.modules:
        return sys.modules[qualified]
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = TESTS / f"{name}{suffix}"
        if path.is_file():
            break
    else:
        pytest.fail(f"tests/{name}.pyx is not built: it is built with the core, by `pip install -e .` "
                    f"or `python setup.py build_ext --inplace` in {TESTS.parent}", pytrace=False)
    spec = importlib.util.spec_from_file_location(qualified, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module
    spec.loader.exec_module(module)
    return module
