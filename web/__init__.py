"""Kestrel in the browser: play and analyse against the engine (``kestrel web``), and watch a
tournament run live (``python -m tournaments ... -web PORT``). Needs the ``web`` extra (aiohttp)."""
