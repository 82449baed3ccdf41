"""Test-only Cython modules (tests/_*.pyx), compiled against this checkout's core on first use.

Some tests reach C functions of the core that have no Python face (a node pool built by
hand, say).  Their helpers are Cython here in tests/, not in the engine; this builds one
into build/tests/ the first time a test session imports it (a few seconds), and again only
when the .pyx or a header it cimports has changed.  Building needs Cython and a C compiler,
as building Kestrel itself does.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent
REPO_ROOT = TESTS.parent
BUILD_DIR = REPO_ROOT / "build" / "tests"
# As setup.py compiles the core.
DIRECTIVES = {"language_level": 3, "boundscheck": False, "wraparound": False, "cdivision": True}


def load(name: str) -> ModuleType:
    """The compiled module tests/`name`.pyx (built if needed), imported under `name`."""
    if name in sys.modules:
        return sys.modules[name]
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    source = os.path.relpath(TESTS / f"{name}.pyx", REPO_ROOT)
    extension = Extension(name, [source], include_dirs=[str(REPO_ROOT / "search" / "board")])
    cwd = os.getcwd()
    os.chdir(REPO_ROOT)         # the core's .pxd headers are found from the checkout's root
    try:
        modules = cythonize([extension], build_dir=str(BUILD_DIR / "c"), include_path=[str(REPO_ROOT)],
                            compiler_directives=DIRECTIVES, quiet=True)
        command = Distribution({"ext_modules": modules}).get_command_obj("build_ext")
        command.build_lib = str(BUILD_DIR)
        command.build_temp = str(BUILD_DIR / "temp")
        command.ensure_finalized()
        command.run()
        path = command.get_ext_fullpath(name)
    finally:
        os.chdir(cwd)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
