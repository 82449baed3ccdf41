# MCTS selection: which child a walk enters (PUCT or UCB1), and which root child is played.

from libc.stdint cimport uint32_t
from search.mcts_pool cimport NodePool

# UCB1 of a child: its mean result plus c * sqrt(ln N / n), where `log_parent_visits` is ln N;
# 1e300 for an unvisited child, which comes first.
cdef double ucb_score(double log_parent_visits, uint32_t visits, double value_sum,
                      double c) noexcept nogil
# The child of `node` a walk enters by UCB1 (select_child) or PUCT (select_child_puct, with
# first-play urgency); never a proven loss; NODE_NONE when every child is one.
cdef uint32_t select_child(const NodePool* p, uint32_t node, double c) noexcept nogil
cdef uint32_t select_child_puct(const NodePool* p, uint32_t node, double c_puct, double fpu_reduction) noexcept nogil
# The child to play: a proven win (the quickest), else the most visited move not proven lost,
# else the loss that takes longest; NODE_NONE when `node` has no children.
cdef uint32_t best_child(const NodePool* p, uint32_t node) noexcept nogil
