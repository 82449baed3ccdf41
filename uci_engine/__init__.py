"""Kestrel's UCI front: the protocol loop that GUIs, bots and tournament managers talk to.

Run it as ``kestrel`` or ``python -m uci_engine``. The loop reads commands on stdin and
answers on stdout; the search runs in a background thread so that ``isready``, ``stop``
and ``quit`` are served while it thinks.
"""

ENGINE_NAME = "Kestrel"
__version__ = "0.1.0"      # the one home of the version: pyproject.toml reads it
ENGINE_VERSION = __version__
ENGINE_AUTHOR = "the Kestrel developers"

__all__ = ["ENGINE_NAME", "ENGINE_VERSION", "ENGINE_AUTHOR", "__version__"]
