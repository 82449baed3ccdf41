"""Loading the table of search parameters (search/param_table.py) into the C struct."""

from libc.math cimport log


cdef int load_search_params(SearchParams* params, dict values) except -1:
    # Cython fills a struct from a mapping field by field, by name, and ignores the other keys
    # (the tm_* time factors); a field the mapping lacks is a ValueError.
    params[0] = dict(values, lmr_table=lmr_table(values["lmr_base"], values["lmr_divisor"]))
    return 0


cdef list lmr_table(double base, double divisor):
    """Base late-move reductions by depth and moves searched: base + ln(depth) ln(moves) / divisor
    (none for depth or moves 0)."""
    cdef int depth, count
    return [[<int>(base + log(depth) * log(count) / divisor) if depth > 0 and count > 0 else 0
             for count in range(64)] for depth in range(64)]
