"""Type stub of the compiled module search.mcts_searcher (see mcts_searcher.pyx)."""

from collections.abc import Callable
from typing import Any, NamedTuple

from search.board.position import Position
from search.searcher import Searcher

LEAF_MODES: tuple[str, ...]
SELECTIONS: tuple[str, ...]
VALUE_MODELS: tuple[str, ...]
STOP_REASONS: dict[int, str | None]
MAX_LEAF_DEPTH: int
BENCH_MODES: tuple[tuple[str, str, int, int], ...]
MAX_REUSE_PLIES: int
DEFAULT_EXPLORATION: float
DEFAULT_PLAYOUT_CAP: int
DEFAULT_SELECTION: str
DEFAULT_C_PUCT: float
DEFAULT_FPU_REDUCTION: float
DEFAULT_PRIOR_TEMPERATURE: float
DEFAULT_LEAF_DEPTH: int
DEFAULT_LEAF_DEPTH_ROOT: int
DEFAULT_VALUE_MODEL: str
DEFAULT_RECYCLE: bool
DEFAULT_VISIT_SHARE_TIME: bool
DEFAULT_FITTED_PRIORS: bool
DEFAULT_REFRESH_PRIORS: bool
DEFAULT_DEEP_ROOT_REFRESH: bool
DEFAULT_VERIFIED_MOVE: bool
PRIOR_FEATURES: tuple[str, ...]
OWN_SWITCH_DEFAULTS: dict[str, bool]
OWN_SWITCHES: tuple[str, ...]

class TreeNode(NamedTuple):
    """A node of MCTSSearcher.tree_nodes(): parent and first_child are None where there is none."""

    parent: int | None
    first_child: int | None
    child_count: int
    stage: str
    visits: int
    value_sum: float
    proven: str | None

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
    leaf_mode: str
    leaf_depth: int
    leaf_depth_root: int
    selection: str
    value_model: str
    seed: int

    def __init__(self, hash_mb: int = 16, threads: int = 1) -> None: ...
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
    def leaf_switches(self) -> dict[str, bool]: ...
    def configure(self, **switches: bool) -> None: ...
    def priors(self, position: Position) -> dict[str, float]: ...
    def prior_features(self, position: Position, tt_move: str | None = None) -> dict[str, list[float]]: ...
    @staticmethod
    def prior_weights(fitted: bool) -> list[float]: ...
    def store_tt_move(self, position: Position, move: str) -> None: ...

    @property
    def pool_capacity(self) -> int: ...
    @property
    def pool_used(self) -> int: ...
    def root_children(self) -> list[dict[str, Any]]: ...
    def tree_nodes(self) -> list[TreeNode]: ...
    @property
    def tree_was_full(self) -> bool: ...

def bench(playouts: int = 20000, out: Callable[[str], None] = ...,
          positions: list[str] | None = None, threads: int = 1,
          modes: list[str] | None = None) -> dict[str, float]: ...
