# The search's tunable numbers as the C search reads them (the table is search/param_table.py).

cdef struct SearchParams:
    int rfp_max_depth
    int rfp_margin
    int nmp_min_depth
    int nmp_base_reduction
    int nmp_depth_divisor
    int nmp_eval_margin
    int nmp_verify_depth
    int iir_min_depth
    int see_max_depth
    int see_margin
    int lmp_max_depth
    int lmp_base
    int futility_max_depth
    int futility_base
    int futility_per_depth
    int futility_history_divisor
    int lmr_min_depth
    int lmr_history_divisor
    int aspiration_min_depth
    int aspiration_delta
    int delta_margin
    int lmr_table[64][64]     # base reductions by depth and moves searched, from lmr_base and lmr_divisor


# Fill `params` from a checked table (search.params.checked_params); the LMR table too.
cdef int load_search_params(SearchParams* params, dict values) except -1

# The base late-move reduction, before its adjustments for node type, history and killers.
cdef inline int base_reduction(const SearchParams* params, int depth, int moves_searched) noexcept nogil:
    return params.lmr_table[depth if depth < 64 else 63][moves_searched if moves_searched < 64 else 63]
