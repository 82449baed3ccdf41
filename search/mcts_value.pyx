"""Scores as win probabilities for the Monte Carlo tree search, and back (see mcts_value.pxd)."""

from libc.math cimport pow, log10, exp
from search.board.material cimport material_in_pawns

from search import wdl

cdef enum:
    CP_LIMIT = 9999     # win probabilities near 0 or 1 map to large but non-mate scores

# The WDL model's constants (search/wdl.py), read once as C doubles for the searches.
cdef double WDL_A0 = wdl.A0
cdef double WDL_A1 = wdl.A1
cdef double WDL_B0 = wdl.B0
cdef double WDL_B1 = wdl.B1


cdef int board_material(const Board* b) noexcept nogil:
    return material_in_pawns(b, b.by_colour[0] | b.by_colour[1])


cdef double cp_to_probability(int cp) noexcept nogil:
    """The logistic curve of the Elo scale: +400 cp is ten-to-one."""
    return 1.0 / (1.0 + pow(10.0, -cp / 400.0))


cdef inline double wdl_expected(double cp, int material) noexcept nogil:
    """win + draw / 2 of the WDL model (search.wdl.wdl_probabilities), in C."""
    cdef double x = (17 if material < 17 else (78 if material > 78 else material)) / 58.0
    cdef double a = WDL_A0 + WDL_A1 * x
    cdef double scale = WDL_B0 + WDL_B1 * x
    cdef double ea, el
    if scale < 1.0:
        scale = 1.0
    ea = (a - cp) / scale
    el = (a + cp) / scale
    # exp overflows past 709; both curves are 0 there anyway.
    cdef double win = 0.0 if ea > 700.0 else 1.0 / (1.0 + exp(ea))
    cdef double loss = 0.0 if el > 700.0 else 1.0 / (1.0 + exp(el))
    return 0.5 * (1.0 + win - loss)


cdef double score_to_probability(int cp, int model, int material) noexcept nogil:
    if model == VALUE_MODEL_WDL:
        return wdl_expected(cp, material)
    return cp_to_probability(cp)


cdef int probability_to_cp(double q) noexcept nogil:
    if q < 1e-9:
        return -CP_LIMIT
    if q > 1.0 - 1e-9:
        return CP_LIMIT
    cdef double cp = 400.0 * log10(q / (1.0 - q))
    if cp > CP_LIMIT:
        return CP_LIMIT
    if cp < -CP_LIMIT:
        return -CP_LIMIT
    return <int>(cp + 0.5) if cp >= 0 else <int>(cp - 0.5)


cdef int probability_to_score(double q, int model, int material) noexcept nogil:
    """Bisection on the model's curve (it rises with the score); only reports call this."""
    cdef int low = -CP_LIMIT, high = CP_LIMIT, middle
    if model != VALUE_MODEL_WDL:
        return probability_to_cp(q)
    if q <= wdl_expected(low, material):
        return low
    if q >= wdl_expected(high, material):
        return high
    while high - low > 1:
        middle = (low + high) // 2
        if wdl_expected(middle, material) < q:
            low = middle
        else:
            high = middle
    return high if wdl_expected(high, material) - q < q - wdl_expected(low, material) else low
