"""Build Kestrel's Cython core.

Compiler directives are set here once for every module, not file by file.
"""

import importlib.util
import os
import shutil
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
# Bottom layer first: the game model, the evaluation, the searchers.
CORE_PACKAGES = ("search.board", "eval", "search")
# The portable C headers (bitops.h, clock.h, atomics.h) sit in the bottom layer, for every module.
HEADER_DIRS = [os.path.join(HERE, "search", "board")]
# The cores this process may run on: the build translates and compiles one module per core.
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def core_modules():
    """Every .pyx under the core packages is one extension (one concern per file);
    the .pxd headers let them call each other in C."""
    names = []
    for package in CORE_PACKAGES:
        folder = os.path.join(HERE, *package.split("."))
        for filename in sorted(os.listdir(folder)):
            if filename.endswith(".pyx"):
                names.append(f"{package}.{filename[:-4]}")
    return names


CORE_MODULES = core_modules()
# The lab's compiled kernels (tools/ sits above the layers; the engine never imports them): a
# tuner's or trainer's kernel lives beside it in tools/.  The tests' own Cython helpers, which reach
# C functions of the core that have no Python face (tests/compiled.py), are built here too, once,
# with the same directives as the core.
TOOL_MODULES = ["tools.nnue_kernels", "tools.texel_kernels", "tests._mcts_internals", "tests._nnue_internals"]


def source_of(name):
    """A module's .pyx, from the checkout's root."""
    return os.path.join(*name.split(".")) + ".pyx"


class BuildExt(build_ext):
    """The lab and the tests are not installed: their kernels are built only in place
    (`build_ext --inplace`, `pip install -e .`), for a checkout, and a wheel holds the engine's
    modules alone."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            # The modules compile side by side, one per core (`-j N` still chooses), for the quick
            # start and for CI (README.md, "Development", gives a clean build's time).
            self.parallel = CORES
        if not self.inplace:
            self.extensions = [ext for ext in self.extensions if ext.name not in TOOL_MODULES]

    def run(self):
        super().run()
        if not self.inplace:
            # An in-place build compiles in the build folder before it copies, so the lab's kernels
            # of an earlier one may lie there, and a wheel takes that folder whole.
            for folder in ("tools", "tests"):
                shutil.rmtree(os.path.join(self.build_lib, folder), ignore_errors=True)


def write_params_pxd():
    """Render the fields of search/params.pxd from search/param_table.py, their one definition.
    The table is loaded by its file path: importing the package `search` would import the
    compiled modules this build makes."""
    spec = importlib.util.spec_from_file_location("kestrel_param_table", os.path.join(HERE, "search", "param_table.py"))
    table = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = table      # dataclasses look their module up there
    spec.loader.exec_module(table)
    if table.write_params_pxd(os.path.join(HERE, "search", "params.pxd")):
        print("search/params.pxd: fields rendered afresh from search/param_table.py")


write_params_pxd()

if sys.platform == "win32":
    compile_args = ["/O2"]
else:
    # -g0: Python's own CFLAGS ask for debug information; writing it for the large C that Cython
    # makes cost a quarter more compiling (every install, every CI run).
    compile_args = ["-O3", "-g0", "-fno-strict-aliasing", "-Wno-unused-function", "-Wno-unreachable-code"]
    if os.environ.get("KESTREL_NATIVE") == "1":
        # Opt-in: a binary tuned for this CPU (popcnt, bmi) that may not run elsewhere.
        compile_args.append("-march=native")

# The trainer's kernels: float comparisons that cannot trap let GCC and Clang turn the clamps into
# vector selects (tools/nnue_loops.h); the results are the same.
tool_compile_args = compile_args if sys.platform == "win32" else [*compile_args, "-fno-trapping-math"]

extensions = [
    Extension(
        name,
        [source_of(name)],
        include_dirs=HEADER_DIRS,
        extra_compile_args=tool_compile_args if name in TOOL_MODULES else compile_args,
    )
    for name in CORE_MODULES + TOOL_MODULES
    # An sdist has no tools/ or tests/: the lab and the tests come with a checkout.
    if name in CORE_MODULES or os.path.exists(os.path.join(HERE, source_of(name)))
]

setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
            "nonecheck": False,
            "embedsignature": True,
        },
        include_path=["."],
        # Cython translates the modules side by side too (about 9 s of one core for all of them);
        # not on Windows, where its worker processes would import this file afresh.
        nthreads=CORES if sys.platform != "win32" else 0,
    ),
)
