"""The MCTS searcher's settings: their names, ranges and defaults, and the checks of a new value.

``MCTSSearcher`` (search/mcts_searcher.pyx) has an attribute for each.  ``SETTINGS`` is the one
definition of those a UCI option sets: uci_engine/options.py declares an option for each from it.
The switches of ``configure()`` (OWN_SWITCH_DEFAULTS) are set by KESTREL_SEARCH_ON/OFF.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import SupportsInt

# "uct" with "playout" leaves is the textbook MCTS (UCB1 selection, random playouts to the end of
# the game), kept as a teaching option (UCI: MCTS Selection uct, MCTS Leaf playout); the engine
# plays PUCT with searched leaves.
LEAF_MODES = ("eval", "playout")
SELECTIONS = ("puct", "uct")
VALUE_MODELS = ("logistic", "wdl")
MAX_LEAF_DEPTH = 8
MAX_SEED = 2**31 - 1    # the playouts' seed, within a UCI spin's signed 32 bits
MAX_REUSE_PLIES = 8     # how far back in the game the previous root may lie for its subtree to be kept

# The defaults are the settings that won their games (the experiments ledger has them).
DEFAULT_SELECTION = "puct"          # priors make PUCT far stronger than UCB1
DEFAULT_LEAF_MODE = "eval"          # searched leaves; random playouts are the textbook's
DEFAULT_SEED = 0
DEFAULT_EXPLORATION = 0.05          # UCB1's constant (values are in [0, 1])
DEFAULT_C_PUCT = 1.0                # with the fitted priors, less width plays better; 0.35 is too greedy
DEFAULT_FPU_REDUCTION = 0.1
DEFAULT_PRIOR_TEMPERATURE = 1.0     # the temperature the fitted prior weights were fitted at
DEFAULT_PLAYOUT_CAP = 40
DEFAULT_LEAF_DEPTH = 0              # quiescence leaves: deeper ones cost more playouts than they are worth
DEFAULT_LEAF_DEPTH_ROOT = 4         # ... but next to the root, where the move is decided, 4 plies pay
DEFAULT_VALUE_MODEL = "wdl"
DEFAULT_RECYCLE = True              # a full pool recycles its least visited subtrees

# The adopted techniques, each with its ablation switch in configure():
DEFAULT_VISIT_SHARE_TIME = True     # the soft limit scaled by the favourite's share of the playouts
DEFAULT_FITTED_PRIORS = True        # the prior weights fitted to alpha-beta's moves, not the hand-set ones
DEFAULT_REFRESH_PRIORS = True       # priors re-derived by alpha-beta searches as visits grow (mcts_state.pxd REFRESH_*)
DEFAULT_DEEP_ROOT_REFRESH = True    # the root's refreshes deeper and uncapped (mcts_state.pxd, ROOT_REFRESH_*)
DEFAULT_VERIFIED_MOVE = True        # a favourite the root's search disputes is searched as deep before it is played
DEFAULT_DECISIVE_ROOT_MOVE = True   # in a won position (600 cp or more) the root's search chooses the move

# configure() names that only the MCTS searcher has, with their defaults (the others are the
# leaves', alpha-beta's names); each is an attribute of MCTSSearcher of the same name.
OWN_SWITCH_DEFAULTS = {
    "visit_share_time": DEFAULT_VISIT_SHARE_TIME, "fitted_priors": DEFAULT_FITTED_PRIORS,
    "refresh_priors": DEFAULT_REFRESH_PRIORS, "deep_root_refresh": DEFAULT_DEEP_ROOT_REFRESH,
    "verified_move": DEFAULT_VERIFIED_MOVE, "decisive_root_move": DEFAULT_DECISIVE_ROOT_MOVE,
}
OWN_SWITCHES = tuple(OWN_SWITCH_DEFAULTS)


@dataclass(frozen=True)
class Setting:
    """A setting of MCTSSearcher that a UCI option sets: a choice (`choices`), a switch (a bool
    default) or a number from `low` to `high`, in the attribute's own units.

    UCI has no real-valued type: a number's option carries it times `scale`, rounded (a
    constant of 1.0 is 1000 in thousandths).  No option name may hold the word "value":
    `setoption` splits on it.
    """

    attribute: str
    option: str
    default: bool | int | float | str
    low: float = 0
    high: float = 0
    choices: tuple[str, ...] = ()
    scale: int = 1


SETTINGS = (
    Setting("exploration", "MCTS Exploration", DEFAULT_EXPLORATION, 0.0, 5.0, scale=1000),
    Setting("leaf_mode", "MCTS Leaf", DEFAULT_LEAF_MODE, choices=LEAF_MODES),
    Setting("seed", "MCTS Seed", DEFAULT_SEED, 0, MAX_SEED),
    Setting("selection", "MCTS Selection", DEFAULT_SELECTION, choices=SELECTIONS),
    Setting("c_puct", "MCTS CPuct", DEFAULT_C_PUCT, 0.0, 10.0, scale=1000),
    Setting("fpu_reduction", "MCTS FPU Reduction", DEFAULT_FPU_REDUCTION, 0.0, 1.0, scale=1000),
    Setting("prior_temperature", "MCTS Prior Temperature", DEFAULT_PRIOR_TEMPERATURE, 0.01, 100.0, scale=100),
    Setting("leaf_depth", "MCTS Leaf Depth", DEFAULT_LEAF_DEPTH, 0, MAX_LEAF_DEPTH),
    Setting("leaf_depth_root", "MCTS Leaf Depth Root", DEFAULT_LEAF_DEPTH_ROOT, 0, MAX_LEAF_DEPTH),
    Setting("value_model", "MCTS Score Curve", DEFAULT_VALUE_MODEL, choices=VALUE_MODELS),
    # A full node pool drops its least visited subtrees, so the tree keeps growing.
    Setting("recycle", "MCTS Recycle", DEFAULT_RECYCLE),
)


def checked_choice(setting: str, value: object, choices: tuple[str, ...]) -> str:
    """`value` as one of `choices` (case and spaces aside), or ValueError naming the setting."""
    name = str(value).strip().lower()
    if name not in choices:
        raise ValueError(f"{setting} must be one of {', '.join(choices)}, not {value!r}")
    return name


def checked_leaf_depth(setting: str, value: SupportsInt | str) -> int:
    """`value` as a leaf search depth, or ValueError naming the setting when out of range."""
    depth = int(value)
    if not 0 <= depth <= MAX_LEAF_DEPTH:
        raise ValueError(f"{setting} must be from 0 to {MAX_LEAF_DEPTH}, not {value!r}")
    return depth
