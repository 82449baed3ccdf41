# The search's tunable numbers as the C search reads them.  Their one definition is the table
# search/param_table.py: the fields between the markers below are rendered from it by setup.py
# (param_table.write_params_pxd), and tests/test_params.py fails when this file is out of date.

cdef struct SearchParams:
    # Generated from search/param_table.py by write_params_pxd() (setup.py runs it): edit the table.
    int rfp_max_depth                # deepest node reverse futility applies to
    int rfp_margin                   # margin per ply of depth (less one ply when improving)
    int nmp_min_depth                # shallowest node that tries a null move
    int nmp_base_reduction           # the null move's reduction before its depth term
    int nmp_depth_divisor            # one more ply of reduction per this many plies of depth
    int nmp_eval_margin              # static eval this far above beta adds a ply of reduction
    int nmp_verify_depth             # from this depth a null-move cutoff is verified
    int iir_min_depth                # PV and cut nodes without a hash move from this depth lose a ply
    int see_max_depth                # deepest node that prunes losing captures
    int see_margin                   # a capture losing more than this per ply of depth is pruned
    int lmp_max_depth                # deepest node that prunes late quiet moves
    int lmp_base                     # quiet moves always tried before depth^2 (x2 when improving) more
    int futility_max_depth           # deepest reduced depth futility applies to
    int futility_base                # margin at reduced depth 0
    int futility_per_depth           # margin per ply of reduced depth
    int futility_history_divisor     # history / this is added to the margin
    int lmr_min_depth                # shallowest node that reduces late moves
    double lmr_base                  # constant term of the reduction table
    double lmr_divisor               # divisor of ln(depth) ln(moves)
    int lmr_history_divisor          # history / this is taken off the reduction
    int se_min_depth                 # shallowest node that tests its hash move for singularity
    int se_tt_depth_margin           # the hash entry may be at most this much shallower
    int se_margin_per_depth          # singular beta = hash score - this * depth
    int probcut_min_depth            # shallowest non-PV node that tries ProbCut
    int probcut_margin               # a capture must reach beta + this in the reduced search
    int probcut_reduction            # the reduced search is this many plies shallower
    int aspiration_min_depth         # first iteration searched with a window
    int aspiration_delta             # half-width of the first window in centipawns
    int delta_margin                 # a capture that cannot lift the eval to alpha by this is skipped
    # End of the generated fields.
    int lmr_table[64][64]     # base reductions by depth and moves searched, from lmr_base and lmr_divisor


# Fill `params` from a checked table (search.param_table.checked_params); the LMR table too.
cdef int load_search_params(SearchParams* params, dict values) except -1

# The base late-move reduction, before its adjustments for node type, history and killers.
cdef inline int base_reduction(const SearchParams* params, int depth, int moves_searched) noexcept nogil:
    return params.lmr_table[depth if depth < 64 else 63][moves_searched if moves_searched < 64 else 63]
