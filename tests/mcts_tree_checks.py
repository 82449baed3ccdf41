"""The invariants of a Monte Carlo tree once its search is over: `tree_problems`."""

from __future__ import annotations

from mcts_internals import MAX_TREE_DEPTH

from search.mcts_searcher import MCTSSearcher, TreeNode


def tree_problems(searcher: MCTSSearcher, strict: bool = True, limit: int = 20) -> list[str]:
    """What is wrong with the tree the searcher's last search left (at most `limit` findings;
    [] when sound).

    Once every thread is done, no walk is under way, so no virtual loss may be left and no
    node may be half checked or half expanded: a new node has no visits (nor has a leaf
    whose only visit a stop cut off, which the next walk values); an expanded node
    has its children published, pointing back at it, and one visit of its own (the leaf
    visit before its expansion) besides theirs, more only if it is proven (its exact value
    is backed up without going down) and none at a fresh root; a leaf not proven has been
    valued at most once, unless the pool was full or it is too deep to expand.  (A leaf
    valued again and again while the pool was full may be expanded in a later search of the
    same tree, once compaction has made room: such a tree only has to have at least one
    visit of its own at each expanded node.)

    Not `strict`: after a `stop` with several threads, a node whose first visit was cut off
    while another thread expanded it may lack its own visit (but never have one more).

    Values: what an expanded node's sum holds beyond its children's (each seen from the
    other side) is its own visits' results, each in [0, 1].
    """
    nodes = searcher.tree_nodes()
    own_visits_vary = searcher.tree_was_full
    used = len(nodes)
    problems: list[str] = []
    for i, n in enumerate(nodes):
        if n.stage == "expanded":
            if n.child_count == 0 or n.first_child is None or n.first_child + n.child_count > used:
                problems.append(f"node {i}: expanded with children {n.first_child}+{n.child_count}")
                continue
            children = range(n.first_child, n.first_child + n.child_count)
            below = sum(nodes[child].visits for child in children)
            own_sum = n.value_sum - sum(nodes[child].visits - nodes[child].value_sum for child in children)
            problems += [f"node {child}: parent {nodes[child].parent}, not {i}"
                         for child in children if nodes[child].parent != i]
            if i == 0:      # the root
                if n.visits < below:
                    problems.append(f"root {i}: {n.visits} visits, {below} below it")
            elif n.proven is not None:
                if n.visits < below + (1 if strict else 0):
                    problems.append(f"proven node {i}: {n.visits} visits, {below} below it")
            elif own_visits_vary:
                if n.visits < below + (1 if strict else 0):
                    problems.append(f"node {i}: {n.visits} visits, {below} below it")
            elif n.visits != below + 1 and (strict or n.visits != below):
                problems.append(f"node {i}: {n.visits} visits, {below} below it + 1")
            # The sums are doubles that every playout adds to (and a recycle subtracts from): each
            # operation may round by an epsilon of the sum, up to `visits`, so a root with 10**5..10**6
            # visits carries a rounding error of 10**-6..10**-4, while a lost or doubled result is
            # off by a whole result.
            slack = 1e-6 + 1e-15 * n.visits * n.visits
            if n.visits >= below and not -slack <= own_sum <= n.visits - below + slack:
                problems.append(f"node {i}: own results sum to {own_sum} for {n.visits - below} visits")
        elif n.stage == "new":
            if n.visits != 0 and i != 0:
                problems.append(f"new node {i}: {n.visits} visits")
        elif n.stage == "leaf":
            if n.proven is None and n.visits > 1 and not own_visits_vary and depth_of(nodes, i) < MAX_TREE_DEPTH:
                problems.append(f"leaf {i}: {n.visits} visits")
        else:
            problems.append(f"node {i}: left in stage {n.stage}")
        if n.value_sum < -1e-9 or n.value_sum > n.visits + 1e-9:
            problems.append(f"node {i}: value sum {n.value_sum} for {n.visits} visits")
        if len(problems) >= limit:
            break
    return problems[:limit]


def depth_of(nodes: list[TreeNode], index: int) -> int:
    """Moves from the root to the node at `index`."""
    depth = 0
    parent = nodes[index].parent
    while parent is not None:
        parent = nodes[parent].parent
        depth += 1
    return depth
