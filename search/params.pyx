"""Loading the table of search parameters (search/param_table.py) into the C struct."""

from libc.math cimport log


cdef int load_search_params(SearchParams* params, dict values) except -1:
    cdef int depth, count
    cdef double lmr_base = values["lmr_base"], lmr_divisor = values["lmr_divisor"]
    params.rfp_max_depth = values["rfp_max_depth"]
    params.rfp_margin = values["rfp_margin"]
    params.nmp_min_depth = values["nmp_min_depth"]
    params.nmp_base_reduction = values["nmp_base_reduction"]
    params.nmp_depth_divisor = values["nmp_depth_divisor"]
    params.nmp_eval_margin = values["nmp_eval_margin"]
    params.nmp_verify_depth = values["nmp_verify_depth"]
    params.iir_min_depth = values["iir_min_depth"]
    params.see_max_depth = values["see_max_depth"]
    params.see_margin = values["see_margin"]
    params.lmp_max_depth = values["lmp_max_depth"]
    params.lmp_base = values["lmp_base"]
    params.futility_max_depth = values["futility_max_depth"]
    params.futility_base = values["futility_base"]
    params.futility_per_depth = values["futility_per_depth"]
    params.futility_history_divisor = values["futility_history_divisor"]
    params.lmr_min_depth = values["lmr_min_depth"]
    params.lmr_history_divisor = values["lmr_history_divisor"]
    params.aspiration_min_depth = values["aspiration_min_depth"]
    params.aspiration_delta = values["aspiration_delta"]
    params.delta_margin = values["delta_margin"]
    for depth in range(64):
        for count in range(64):
            if depth == 0 or count == 0:
                params.lmr_table[depth][count] = 0
            else:
                params.lmr_table[depth][count] = <int>(lmr_base + log(depth) * log(count) / lmr_divisor)
    return 0
