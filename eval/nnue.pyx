"""The learned evaluation (NNUE) in C: the network's weights, the accumulators and the exact integer formula.

The network is a perspective network: 768 inputs (colour relative to the perspective, piece type,
square seen from that side) into ``hidden`` units per side, clipped and squared (SCReLU), into
one output from the layer of the position's bucket (by piece count); eval/nnue_architecture.pxd
defines the inputs (a king-mirrored net flips a perspective's inputs left-right while its own
king is on files e-h), the buckets and the bounds of the sizes.  Then,
exactly (int16 accumulators, 64-bit sums, division truncated toward zero as C's ``/``;
eval/nnue_file.py is the format's one definition, and tests/nnue_reference.py its ground truth
in Python):

    acc_p[j] = feature_bias[j] + sum of feature_weights[f * hidden + j] over p's inputs f
    v = clamp(acc, 0, qa)
    w = output_weights + bucket * 2 * hidden
    raw = (sum_j v_us[j]^2 * w[j] + sum_j v_them[j]^2 * w[hidden + j]) / qa + output_bias[bucket]
    eval = raw * scale / (qa * qb), from the side to move's view, clamped to +-EVAL_LIMIT

The accumulators are kept per search thread (AccumulatorStack) and brought up to date lazily:
only a position that is evaluated needs them, and it is reached from the nearest ancestor
whose accumulators are known by replaying the board's change records (a move adds and
subtracts two to four weight rows); a king-mirrored net computes a position afresh when the
walk would cross a king's move between files d and e.  The loops over the hidden units are
eval/nnue_simd.h's: AVX2 where the CPU has it (chosen when this module is imported, also in a
portable build), else portable C that the compiler vectorises; both give the same numbers.
"""

from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memset
from search.board.types cimport NO_SQUARE, KING, piece_type_of, colour_of
from search.board.bitboard cimport popcount, pop_lsb
from search.board.board cimport Board, UndoRecord, PieceChange, king_square
from eval.evaluate cimport EVAL_LIMIT
from eval.nnue_architecture cimport (
    NNUE_INPUTS, NNUE_MIN_HIDDEN, NNUE_MAX_HIDDEN, NNUE_HIDDEN_STEP, NNUE_MAX_QA, NNUE_MAX_QB, NNUE_MAX_SCALE,
    NNUE_MAX_OUTPUT_BUCKETS, NNUE_FEATURES_PLAIN, NNUE_FEATURE_SETS, nnue_feature_index, nnue_file_flip,
    nnue_output_bucket,
)

from typing import Any

cdef extern from "aligned.h" nogil:
    void* kestrel_aligned_calloc(size_t nbytes, void** block)

# The hot loops, in portable C and AVX2, and the switch between them (eval/nnue_simd.h).
cdef extern from "nnue_simd.h" nogil:
    enum:
        KESTREL_NNUE_KERNELS_AVX2
    int kestrel_nnue_kernels
    int kestrel_nnue_select_kernels(int simd)
    void kestrel_nnue_rows(int16_t* dst, const int16_t* src, const int16_t** adds, int add_count,
                           const int16_t** subs, int sub_count, int n)
    int64_t kestrel_nnue_screlu(const int16_t* acc, const int16_t* w, int n, int16_t qa, int chunk)

cdef enum:
    INT32_LIMIT = 2147483647
    INT16_LIMIT = 32767

# The fastest kernels this CPU runs, chosen once, before any search starts.
kestrel_nnue_select_kernels(1)

# Every network made gets the next number: a stack compares numbers, never addresses, which
# a new network may reuse after an old one is freed.
cdef uint64_t next_serial = 1


# ---------------------------------------------------------------- inputs

cdef inline const int16_t* feature_row(const NetworkWeights* net, int perspective, int piece,
                                       int square, int flip) noexcept nogil:
    """The weight row of `piece` on `square` as `perspective` sees it, `flip` its nnue_file_flip."""
    cdef int feature = nnue_feature_index(perspective, colour_of(piece), piece_type_of(piece), square) ^ flip
    return net.feature_weights + <size_t>feature * <size_t>net.hidden


cdef inline int perspective_flip(const NetworkWeights* net, const Board* b, int perspective) noexcept nogil:
    """What `perspective` XORs into its inputs in the position `b` (0 unless the net mirrors)."""
    if net.feature_set == NNUE_FEATURES_PLAIN:
        return 0
    return nnue_file_flip(net.feature_set, king_square(b, perspective))


cdef inline bint king_changes_wing(const UndoRecord* rec) noexcept nogil:
    """Whether the move of `rec` takes a king between files a-d and e-h (a step between d and e,
    castling to the other wing): a king-mirrored perspective then sees every input change."""
    cdef int i
    cdef const PieceChange* change
    for i in range(rec.change_count):
        change = &rec.changes[i]
        if piece_type_of(change.piece) == KING and change.from_sq != NO_SQUARE and change.to_sq != NO_SQUARE \
                and ((change.from_sq & 7) >= 4) != ((change.to_sq & 7) >= 4):
            return True
    return False


# ---------------------------------------------------------------- the first layer

cdef void refresh_accumulators(const NetworkWeights* net, const Board* b, int16_t* out) noexcept nogil:
    cdef int n = net.hidden, square, piece, count = 0
    cdef int white_flip = perspective_flip(net, b, 0), black_flip = perspective_flip(net, b, 1)
    cdef uint64_t pieces = b.occupied
    # A row per piece: the board's FEN check allows at most 32, the arrays hold a square each anyway.
    cdef const int16_t* white_rows[64]
    cdef const int16_t* black_rows[64]
    while pieces:
        square = pop_lsb(&pieces)
        piece = b.squares[square]
        white_rows[count] = feature_row(net, 0, piece, square, white_flip)
        black_rows[count] = feature_row(net, 1, piece, square, black_flip)
        count += 1
    # All rows of a perspective in one call: the AVX2 kernel sums them in registers.
    kestrel_nnue_rows(out, net.feature_bias, white_rows, count, NULL, 0, n)
    kestrel_nnue_rows(out + n, net.feature_bias, black_rows, count, NULL, 0, n)


cdef void apply_changes(const NetworkWeights* net, const UndoRecord* rec, const int16_t* src,
                        int16_t* dst, const int* flips) noexcept nogil:
    """`dst` = `src` with the move of `rec` played: its vanished pieces' rows subtracted and the
    appeared ones added, in one pass per perspective for the usual moves.  `flips` are the
    perspectives' nnue_file_flip, the same before and after a move that keeps the kings' wings."""
    cdef int n = net.hidden, perspective, i, adds, subs
    cdef const PieceChange* change
    cdef const int16_t* added[4]
    cdef const int16_t* removed[4]
    for perspective in range(2):
        adds = 0
        subs = 0
        for i in range(rec.change_count):
            change = &rec.changes[i]
            if change.from_sq != NO_SQUARE:
                removed[subs] = feature_row(net, perspective, change.piece, change.from_sq, flips[perspective])
                subs += 1
            if change.to_sq != NO_SQUARE:
                added[adds] = feature_row(net, perspective, change.piece, change.to_sq, flips[perspective])
                adds += 1
        kestrel_nnue_rows(dst + perspective * n, src + perspective * n, added, adds, removed, subs, n)


cdef const int16_t* current_accumulators(AccumulatorStack* stack, const NetworkWeights* net,
                                         const Board* b) noexcept nogil:
    cdef int width = 2 * net.hidden, ply = b.game_ply, base = b.game_ply, slot, cost = 0
    cdef int limit = popcount(b.occupied)
    cdef int mask = ACCUMULATOR_SLOTS - 1
    cdef int flips[2]
    cdef const UndoRecord* rec
    slot = ply & mask
    if stack.computed[slot] and stack.keys[slot] == b.key:
        return stack.values + slot * width
    # Walk back along the game's records to the nearest position whose accumulators this thread
    # knows, while replaying the moves from there stays cheaper than a refresh (about a row per
    # piece and side); the search path, or the game before the root, usually has one a ply or two back.
    # A mirroring net cannot replay a king's move to the other wing: its perspective's every input changes.
    while True:
        if base == 0 or ply - base >= ACCUMULATOR_SLOTS - 1:
            base = -1
            break
        rec = &b.history[base - 1]
        cost += rec.change_count + 1
        if cost > limit or (net.feature_set != NNUE_FEATURES_PLAIN and king_changes_wing(rec)):
            base = -1
            break
        base -= 1
        if stack.computed[base & mask] and stack.keys[base & mask] == rec.key:
            break
    if base < 0:
        refresh_accumulators(net, b, stack.values + slot * width)
        stack.keys[slot] = b.key
        stack.computed[slot] = 1
        stack.refreshes += 1
        return stack.values + slot * width
    flips[0] = perspective_flip(net, b, 0)
    flips[1] = perspective_flip(net, b, 1)
    while base < ply:
        # Every position on the way is kept: its siblings in the search start from it.
        apply_changes(net, &b.history[base], stack.values + (base & mask) * width,
                      stack.values + ((base + 1) & mask) * width, flips)
        stack.keys[(base + 1) & mask] = b.history[base + 1].key if base + 1 < ply else b.key
        stack.computed[(base + 1) & mask] = 1
        stack.updates += 1
        base += 1
    return stack.values + slot * width


# ---------------------------------------------------------------- the output layer

cdef inline int64_t truncated_div(int64_t a, int64_t b) noexcept nogil:
    """C's signed division, truncated toward zero, as the file format defines it (setup.py
    compiles with cdivision, so `//` is C's `/` here; the format does not depend on that)."""
    cdef int64_t q = (a if a >= 0 else -a) // b
    return q if a >= 0 else -q

cdef int64_t screlu_wide(const int16_t* acc, const int16_t* weights, int n, int16_t qa) noexcept nogil:
    """The same sum with a 64-bit product per input: exact for any int16 weights."""
    cdef int64_t total = 0
    cdef int32_t v
    cdef int j
    for j in range(n):
        v = acc[j]
        v = v if v > 0 else 0
        v = v if v < qa else qa
        total += <int64_t>(v * v) * weights[j]
    return total

cdef int network_output(const NetworkWeights* net, const int16_t* acc, const Board* b) noexcept nogil:
    cdef int n = net.hidden
    cdef int bucket = nnue_output_bucket(popcount(b.occupied), net.buckets)
    cdef const int16_t* weights = net.output_weights + bucket * 2 * n
    cdef const int16_t* us = acc + b.side_to_move * n
    cdef const int16_t* them = acc + (1 - b.side_to_move) * n
    cdef int16_t qa = <int16_t>net.qa
    cdef int64_t total, raw, score
    if net.output_chunk > 0:
        total = (kestrel_nnue_screlu(us, weights, n, qa, net.output_chunk)
                 + kestrel_nnue_screlu(them, weights + n, n, qa, net.output_chunk))
    else:
        total = screlu_wide(us, weights, n, qa) + screlu_wide(them, weights + n, n, qa)
    raw = truncated_div(total, net.qa) + net.output_bias[bucket]
    score = truncated_div(raw * net.scale, <int64_t>net.qa * net.qb)
    if score > EVAL_LIMIT:
        return EVAL_LIMIT
    if score < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return <int>score


cdef int nnue_select_kernels(bint simd) noexcept nogil:
    return kestrel_nnue_select_kernels(simd)


def kernels() -> str:
    """The loops in use: ``"avx2"``, or ``"portable"`` (C that the compiler vectorises)."""
    return "avx2" if kestrel_nnue_kernels == KESTREL_NNUE_KERNELS_AVX2 else "portable"


cdef int nnue_evaluate(AccumulatorStack* stack, const NetworkWeights* net, const Board* b) noexcept nogil:
    return network_output(net, current_accumulators(stack, net, b), b)


# ---------------------------------------------------------------- a thread's stack

cdef int stack_prepare(AccumulatorStack* stack, const NetworkWeights* net) noexcept nogil:
    cdef void* block
    cdef int16_t* values
    if stack.hidden != net.hidden:
        stack_free(stack)
        values = <int16_t*>kestrel_aligned_calloc(
            <size_t>ACCUMULATOR_SLOTS * 2 * <size_t>net.hidden * sizeof(int16_t), &block)
        if values == NULL:
            return -1
        stack.values = values
        stack.block = block
        stack.hidden = net.hidden
        stack.serial = 0
    if stack.serial != net.serial:
        memset(stack.computed, 0, sizeof(stack.computed))
        stack.serial = net.serial
    return 0

cdef void stack_free(AccumulatorStack* stack) noexcept nogil:
    free(stack.block)
    stack.block = NULL
    stack.values = NULL
    stack.hidden = 0
    stack.serial = 0
    memset(stack.computed, 0, sizeof(stack.computed))


# ---------------------------------------------------------------- the Python face of a network

cdef inline size_t padded(size_t nbytes) noexcept nogil:
    return (nbytes + 63) & ~(<size_t>63)


cdef class Network:
    """An NNUE network's weights in C memory, read by every search thread at once.

    Built from the parameter arrays (any buffer of int16: ``array('h')``, a numpy array), as the
    net file's reader (eval/nnue_file.py) gives them: ``feature_weights`` 768 x hidden,
    feature-major; ``feature_bias`` hidden; ``output_weights`` buckets x 2 x hidden, per bucket the
    side to move's half first; ``output_biases`` one int32 per bucket (1..8 of them);
    ``feature_set`` 0 (plain) or 1 (inputs mirrored by the king's wing).  The arrays are copied;
    ValueError for shapes or constants out of range.
    """

    def __cinit__(self, *args, **kwargs):
        memset(&self.weights, 0, sizeof(NetworkWeights))
        self.block = NULL

    def __init__(self, int hidden, int qa, int qb, int scale, feature_weights: Any, feature_bias: Any,
                 output_weights: Any, output_biases: Any, int feature_set=0) -> None:
        global next_serial
        cdef const int16_t[::1] fw
        cdef const int16_t[::1] fb
        cdef const int16_t[::1] ow
        cdef size_t fw_bytes, fb_bytes, ow_bytes
        cdef char* base
        cdef void* block
        cdef int j, buckets, largest = 0
        cdef int64_t chunk
        if self.block != NULL:
            raise TypeError("a Network is built once: searchers may be reading its weights")
        if hidden < NNUE_MIN_HIDDEN or hidden > NNUE_MAX_HIDDEN or hidden % NNUE_HIDDEN_STEP:
            raise ValueError(f"hidden must be {NNUE_MIN_HIDDEN}..{NNUE_MAX_HIDDEN} and a multiple of "
                             f"{NNUE_HIDDEN_STEP}, not {hidden}")
        if not (1 <= qa <= NNUE_MAX_QA and 1 <= qb <= NNUE_MAX_QB and 1 <= scale <= NNUE_MAX_SCALE):
            raise ValueError(f"qa must be 1..{NNUE_MAX_QA}, qb 1..{NNUE_MAX_QB} and scale 1..{NNUE_MAX_SCALE}; "
                             f"got qa {qa}, qb {qb}, scale {scale}")
        if not 0 <= feature_set < NNUE_FEATURE_SETS:
            raise ValueError(f"feature_set must be 0..{NNUE_FEATURE_SETS - 1}, not {feature_set}")
        biases = [int(value) for value in output_biases]
        buckets = len(biases)
        if not 1 <= buckets <= NNUE_MAX_OUTPUT_BUCKETS:
            raise ValueError(f"a network has 1..{NNUE_MAX_OUTPUT_BUCKETS} output buckets (one bias each), "
                             f"not {buckets}")
        if any(not -2**31 <= value < 2**31 for value in biases):
            raise ValueError(f"an output bias does not fit in int32: {biases}")
        fw = feature_weights
        fb = feature_bias
        ow = output_weights
        if fw.shape[0] != NNUE_INPUTS * hidden or fb.shape[0] != hidden or ow.shape[0] != buckets * 2 * hidden:
            raise ValueError(f"a {hidden}-wide network with {buckets} output buckets needs "
                             f"{NNUE_INPUTS * hidden} feature weights, {hidden} feature biases and "
                             f"{buckets * 2 * hidden} output weights; got {fw.shape[0]}, {fb.shape[0]}, "
                             f"{ow.shape[0]}")
        fw_bytes = padded(NNUE_INPUTS * <size_t>hidden * sizeof(int16_t))
        fb_bytes = padded(<size_t>hidden * sizeof(int16_t))
        ow_bytes = padded(<size_t>buckets * 2 * <size_t>hidden * sizeof(int16_t))
        base = <char*>kestrel_aligned_calloc(fw_bytes + fb_bytes + ow_bytes, &block)
        if base == NULL:
            raise MemoryError("cannot allocate the network's weights")
        self.block = block
        memcpy(base, &fw[0], NNUE_INPUTS * <size_t>hidden * sizeof(int16_t))
        memcpy(base + fw_bytes, &fb[0], <size_t>hidden * sizeof(int16_t))
        memcpy(base + fw_bytes + fb_bytes, &ow[0], <size_t>buckets * 2 * <size_t>hidden * sizeof(int16_t))
        for j in range(buckets * 2 * hidden):
            largest = max(largest, abs(<int>ow[j]))
        # The 16-bit output path is exact when v * w fits an int16 for every v in 0..qa, and a
        # chunk of (v * w) * v products fits an int32; otherwise every product is 64-bit.
        chunk = 0
        if qa * largest <= INT16_LIMIT:
            chunk = hidden if largest == 0 else min(hidden, INT32_LIMIT // (<int64_t>qa * qa * largest))
            chunk -= chunk % NNUE_HIDDEN_STEP
        self.weights.hidden = hidden
        self.weights.qa = qa
        self.weights.qb = qb
        self.weights.scale = scale
        self.weights.buckets = buckets
        self.weights.feature_set = feature_set
        for j in range(buckets):
            self.weights.output_bias[j] = biases[j]
        self.weights.output_chunk = <int>chunk
        self.weights.feature_weights = <const int16_t*>base
        self.weights.feature_bias = <const int16_t*>(base + fw_bytes)
        self.weights.output_weights = <const int16_t*>(base + fw_bytes + fb_bytes)
        self.weights.serial = next_serial
        next_serial += 1

    def __dealloc__(self):
        free(self.block)

    @property
    def hidden(self) -> int:
        return self.weights.hidden

    @property
    def qa(self) -> int:
        return self.weights.qa

    @property
    def qb(self) -> int:
        return self.weights.qb

    @property
    def scale(self) -> int:
        return self.weights.scale

    @property
    def buckets(self) -> int:
        """Output layers, chosen by the position's piece count."""
        return self.weights.buckets

    @property
    def feature_set(self) -> int:
        """0: plain inputs; 1: a perspective's inputs mirrored left-right while its king is on files e-h."""
        return self.weights.feature_set

    @property
    def output_biases(self) -> tuple[int, ...]:
        return tuple(self.weights.output_bias[j] for j in range(self.weights.buckets))

    @property
    def output_chunk(self) -> int:
        """Inputs summed per 32-bit chunk by the 16-bit output path; 0 when it takes 64-bit products."""
        return self.weights.output_chunk

    def __repr__(self) -> str:
        return f"Network(hidden={self.weights.hidden}, qa={self.weights.qa}, qb={self.weights.qb}, " \
               f"scale={self.weights.scale}, buckets={self.weights.buckets}, " \
               f"feature_set={self.weights.feature_set})"
