"""How to install an optional extra, said in a way that works from where the user is.

``kestrel-chess`` is not published on PyPI, so ``pip install 'kestrel-chess[cluster]'`` would
only answer "no matching distribution". From a source checkout (the usual case, and an
editable install) the extra is installed from the checkout's folder; from an installed wheel
the hint names the extra's own requirements, which PyPI has.
"""

from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "kestrel-chess"
# The extras' requirements as pyproject.toml declares them (tests check that the two agree),
# for an installed copy whose metadata cannot be read.
EXTRAS = {
    "cluster": ["dask[distributed]>=2024.1"],
    "live": ["rich>=13"],
    "plot": ["matplotlib>=3.6"],
    "web": ["aiohttp>=3.9"],
}


def checkout_root() -> Path | None:
    """The source checkout this package runs from, or None for an installed copy."""
    root = Path(__file__).resolve().parent.parent
    pyproject = root / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        return None
    return root if f'name = "{DISTRIBUTION}"' in text else None


def extra_requirements(extra: str) -> list[str]:
    """The requirements of ``extra``: from the installed distribution's metadata if it has them."""
    try:
        requires = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        requires = []
    found = []
    for line in requires:
        requirement, _, marker = line.partition(";")
        if f'extra == "{extra}"' in marker.replace("'", '"'):
            found.append(requirement.strip().replace(" ", ""))
    return found or EXTRAS[extra]


def install_hint(extra: str, cwd: str | None = None) -> str:
    """The pip command that installs ``extra`` (one of ``EXTRAS``) for this copy of the runner."""
    root = checkout_root()
    if root is not None:
        here = Path(cwd or os.getcwd()).resolve()
        target = "." if here == root else str(root)
        words = [f"{target}[{extra}]"]
    else:
        words = extra_requirements(extra)
    # Double quotes: the brackets and ">=" stay literal in POSIX shells, PowerShell and cmd.exe alike.
    return "pip install " + " ".join(f'"{word}"' for word in words)
