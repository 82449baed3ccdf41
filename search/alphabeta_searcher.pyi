"""Type stub of the compiled module search.alphabeta_searcher (see alphabeta_searcher.pyx)."""

from collections.abc import Callable

from search.searcher import Searcher

class AlphaBetaSearcher(Searcher):
    """Iterative-deepening PVS with a transposition table; Lazy SMP with threads > 1."""

    threads: int

    def __init__(self, hash_mb: int = 16, threads: int = 1) -> None: ...
    def configure(self, **switches: bool) -> None: ...
    @property
    def switches(self) -> dict[str, bool]: ...
    def set_tablebase_probe(self, prober: Callable[[str], int | None] | None, probe_depth: int = 1,
                            max_pieces: int = 0) -> None: ...
