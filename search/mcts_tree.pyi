"""Type stub of the compiled module search.mcts_tree (see mcts_tree.pyx)."""

from typing import NamedTuple

PROVEN_NAMES: dict[int, str | None]
STAGE_NAMES: dict[int, str]

class TreeNode(NamedTuple):
    """A node of MCTSSearcher.tree_nodes(): parent and first_child are None where there is none."""

    parent: int | None
    first_child: int | None
    child_count: int
    stage: str
    visits: int
    value_sum: float
    proven: str | None

class MCTSTree:
    """The node pool of one MCTS searcher, and what its searches leave in it."""

    def clear(self) -> None: ...
    @property
    def capacity(self) -> int: ...
    @property
    def used(self) -> int: ...
    def nodes(self) -> list[TreeNode]: ...
