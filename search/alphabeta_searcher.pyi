"""Type stub of the compiled module search.alphabeta_searcher (see alphabeta_searcher.pyx)."""

from collections.abc import Callable

from search.searcher import Searcher

class AlphaBetaSearcher(Searcher):
    """Iterative-deepening PVS with a transposition table; Lazy SMP with threads > 1."""

    threads: int

    def __init__(self, hash_mb: int = 16, threads: int = 1) -> None: ...
    def configure(self, tt_cutoffs: bool = True, null_move: bool = True, late_move_reductions: bool = True,
                  internal_reduction: bool = True, reverse_futility: bool = True, futility: bool = True,
                  late_move_pruning: bool = True, see_pruning: bool = True, check_extension: bool = True,
                  quiescence: bool = True, quiescence_tt: bool = True, aspiration: bool = True,
                  continuation_history: bool = False, capture_history: bool = False,
                  correction_history: bool = False, razoring: bool = False, singular_extension: bool = False,
                  probcut: bool = False, tt_keep_exact: bool = False,
                  node_time_management: bool = True) -> None: ...
    def set_tablebase_probe(self, prober: Callable[[str], int | None] | None, probe_depth: int = 1,
                            max_pieces: int = 0) -> None: ...
