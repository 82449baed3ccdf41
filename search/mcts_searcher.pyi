"""Type stub of the compiled module search.mcts_searcher (see mcts_searcher.pyx)."""

from typing import Any

from search.board.position import Position
from search.mcts_settings import OWN_SWITCHES as OWN_SWITCHES
from search.mcts_tree import TreeNode as TreeNode
from search.searcher import Searcher

STOP_REASONS: dict[int, str | None]
VERIFICATIONS: dict[int, str | None]
PRIOR_FEATURES: tuple[str, ...]
HELPER_SEED_STEP: int

class MCTSSearcher(Searcher):
    """PUCT (or UCT) with an MCTS-Solver over a node pool sized from the Hash option."""

    exploration: float
    c_puct: float
    fpu_reduction: float
    prior_temperature: float
    playout_cap: int
    reuse_tree: bool
    recycle: bool
    visit_share_time: bool
    fitted_priors: bool
    refresh_priors: bool
    deep_root_refresh: bool
    verified_move: bool
    decisive_root_move: bool
    leaf_mode: str
    leaf_depth: int
    leaf_depth_root: int
    selection: str
    value_model: str
    seed: int

    def __init__(self, hash_mb: int = 16, threads: int = 1) -> None: ...
    def configure(self, **switches: bool) -> None: ...
    @property
    def leaf_switches(self) -> dict[str, bool]: ...
    def priors(self, position: Position) -> dict[str, float]: ...
    def prior_features(self, position: Position, tt_move: str | None = None) -> dict[str, list[float]]: ...
    @staticmethod
    def prior_weights(fitted: bool) -> list[float]: ...
    @property
    def pool_capacity(self) -> int: ...
    @property
    def pool_used(self) -> int: ...
    @property
    def playouts(self) -> int: ...
    @property
    def thread_playouts(self) -> list[int]: ...
    @property
    def root_visits(self) -> int: ...
    @property
    def stop_reason(self) -> str | None: ...
    @property
    def time_factor(self) -> float: ...
    @property
    def recycles(self) -> int: ...
    @property
    def root_search(self) -> tuple[str, int, int] | None: ...
    @property
    def root_search_move(self) -> str | None: ...
    @property
    def verification(self) -> str | None: ...
    def root_children(self) -> list[dict[str, Any]]: ...
    def tree_nodes(self) -> list[TreeNode]: ...
    @property
    def tree_was_full(self) -> bool: ...
