"""The NNUE trainer's sparse kernels: decode records, forward, and forward + backward, without the GIL.

A position has at most 32 active inputs of 768 per perspective, so a dense product would spend
almost all its time on zeros: the first layer here is a sum of the active rows of W (forward) and
a scatter-add of the accumulator's gradient into those rows (backward).  Every kernel works on the
records of its slice of the batch and writes only its own output and gradient buffers, so the
trainer splits a batch across Python threads (each call releases the GIL) and sums the per-thread
gradients afterwards: no OpenMP, so the same code builds with MSVC and on macOS.

The model is that of ``eval/nnue_file.py``, its inputs (with the net's feature set) and output
buckets those of ``eval/nnue_architecture.pxd`` (the header the engine's inference compiles against too): ``w_out`` is
buckets x 2 x hidden and ``b_out`` one bias per bucket, the bucket chosen by the record's piece count.
The records are those of ``tools/nnue_data.py``.
Every kernel takes the parameters in float32 or float64 (the same type for all of them): the trainer
uses float32, the gradient check float64.
"""

from libc.math cimport exp
from libc.stdint cimport int32_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from eval.nnue_architecture cimport (
    NNUE_INPUTS, NNUE_MAX_ACTIVE, NNUE_MAX_OUTPUT_BUCKETS, NNUE_FEATURE_SETS, nnue_feature_index, nnue_file_flip,
    nnue_output_bucket,
)

from tools.nnue_data import RECORD_SIZE


cdef extern from "bitops.h" nogil:
    int kestrel_lsb(uint64_t b)


ctypedef fused real:
    float
    double


cdef enum:
    INPUTS = NNUE_INPUTS
    MAX_FEATURES = NNUE_MAX_ACTIVE
    # Positions whose first-layer gradients are gathered before they go into grad_W (see train_batch).
    CHUNK = 64


cdef int decode_record(const uint8_t* record, int32_t* white, int32_t* black, int* stm,
                       int feature_set) noexcept nogil:
    """Both perspectives' active features of one record in a net of `feature_set`; their count,
    or -1 for a bad piece code."""
    cdef uint64_t occupied = 0
    cdef int k, square, code, colour, piece_type, white_flip, black_flip
    cdef int count = 0
    cdef int kings[2]
    kings[0] = 0
    kings[1] = 0
    # Byte by byte: the record is little-endian whatever the host is.
    for k in range(8):
        occupied |= (<uint64_t>record[k]) << (8 * k)
    while occupied and count < MAX_FEATURES:
        square = kestrel_lsb(occupied)
        occupied &= occupied - 1
        code = (record[8 + (count >> 1)] >> (4 * (count & 1))) & 15
        if code >= 12:
            return -1
        colour = 1 if code >= 6 else 0
        piece_type = code - 6 * colour
        white[count] = nnue_feature_index(0, colour, piece_type, square)
        black[count] = nnue_feature_index(1, colour, piece_type, square)
        if piece_type == 5:
            kings[colour] = square
        count += 1
    stm[0] = (record[27] >> 7) & 1
    # Each perspective mirrors by its own king, known once every piece is read.
    white_flip = nnue_file_flip(feature_set, kings[0])
    black_flip = nnue_file_flip(feature_set, kings[1])
    if white_flip or black_flip:
        for k in range(count):
            white[k] ^= white_flip
            black[k] ^= black_flip
    return count


cdef inline double record_target(const uint8_t* record, double lam, double inv_scale) noexcept nogil:
    """lambda * sigmoid(score / scale) + (1 - lambda) * result / 2: the win probability to learn."""
    cdef int score = <int>(record[24] | (record[25] << 8))
    if score >= 32768:
        score -= 65536
    return lam / (1.0 + exp(-score * inv_scale)) + (1.0 - lam) * 0.5 * record[26]


cdef extern from "nnue_loops.h" nogil:
    void nnue_add_rows_f32(float* dst, const float* base, const int32_t* rows, int count, Py_ssize_t n)
    void nnue_add_rows_f64(double* dst, const double* base, const int32_t* rows, int count, Py_ssize_t n)
    void nnue_add_f32(float* dst, const float* src, Py_ssize_t n)
    void nnue_add_f64(double* dst, const double* src, Py_ssize_t n)
    double nnue_screlu_dot_f32(const float* acc, const float* w, Py_ssize_t n)
    double nnue_screlu_dot_f64(const double* acc, const double* w, Py_ssize_t n)
    void nnue_screlu_backward_f32(const float* acc, const float* w, float* grad_w, float* d, float dout,
                                  Py_ssize_t n)
    void nnue_screlu_backward_f64(const double* acc, const double* w, double* grad_w, double* d, double dout,
                                  Py_ssize_t n)


cdef inline void add_row(real* dst, const real* src, Py_ssize_t n) noexcept nogil:
    if real is float:
        nnue_add_f32(dst, src, n)
    else:
        nnue_add_f64(dst, src, n)


cdef inline double screlu_dot(const real* acc, const real* w, Py_ssize_t n) noexcept nogil:
    if real is float:
        return nnue_screlu_dot_f32(acc, w, n)
    else:
        return nnue_screlu_dot_f64(acc, w, n)


cdef inline void screlu_backward(const real* acc, const real* w, real* grad_w, real* d, real dout,
                                 Py_ssize_t n) noexcept nogil:
    if real is float:
        nnue_screlu_backward_f32(acc, w, grad_w, d, dout, n)
    else:
        nnue_screlu_backward_f64(acc, w, grad_w, d, dout, n)


cdef inline void add_rows(real* dst, const real* base, const int32_t* rows, int count, Py_ssize_t n) noexcept nogil:
    if real is float:
        nnue_add_rows_f32(dst, base, rows, count, n)
    else:
        nnue_add_rows_f64(dst, base, rows, count, n)


cdef inline void accumulate(const int32_t* features, int count, const real* W, const real* bias, real* acc,
                            Py_ssize_t hidden) noexcept nogil:
    """acc = bias + the rows of W of the active features."""
    memcpy(acc, bias, hidden * sizeof(real))
    add_rows(acc, W, features, count, hidden)


def decode(const uint8_t[:, ::1] records, int32_t[:, ::1] white, int32_t[:, ::1] black,
           int32_t[::1] counts, int32_t[::1] stm, int feature_set=0) -> None:
    """Each record's active features (White's and Black's perspective, `counts` of them) in a net
    of `feature_set`, and its side to move."""
    cdef Py_ssize_t n = records.shape[0], i
    cdef int bad = 0, side = 0
    check_feature_set(feature_set)
    if records.shape[1] != RECORD_SIZE:
        raise ValueError(f"records must have {RECORD_SIZE} bytes each, not {records.shape[1]}")
    if white.shape[0] < n or black.shape[0] < n or counts.shape[0] < n or stm.shape[0] < n \
            or white.shape[1] < MAX_FEATURES or black.shape[1] < MAX_FEATURES:
        raise ValueError("output buffers too small")
    with nogil:
        for i in range(n):
            counts[i] = decode_record(&records[i, 0], &white[i, 0], &black[i, 0], &side, feature_set)
            stm[i] = side
            if counts[i] < 0:
                bad += 1
    if bad:
        raise ValueError(f"{bad} records hold a bad piece code")


cdef void check_feature_set(int feature_set) except *:
    if not 0 <= feature_set < NNUE_FEATURE_SETS:
        raise ValueError(f"feature_set must be 0..{NNUE_FEATURE_SETS - 1}, not {feature_set}")


cdef void check_shapes(Py_ssize_t records_width, Py_ssize_t w_rows, Py_ssize_t hidden, Py_ssize_t bias_size,
                       Py_ssize_t out_size, Py_ssize_t buckets) except *:
    if records_width != RECORD_SIZE:
        raise ValueError(f"records must have {RECORD_SIZE} bytes each, not {records_width}")
    if not 1 <= buckets <= NNUE_MAX_OUTPUT_BUCKETS:
        raise ValueError(f"b_out holds one bias per output bucket (1..{NNUE_MAX_OUTPUT_BUCKETS}), not {buckets}")
    if w_rows != INPUTS or bias_size != hidden or out_size != buckets * 2 * hidden:
        raise ValueError(f"parameter shapes do not match: W ({w_rows}, {hidden}), b ({bias_size}), "
                         f"w_out ({out_size}) for {buckets} output buckets")


def forward(const uint8_t[:, ::1] records, real[:, ::1] W, real[::1] bias, real[::1] w_out, real[::1] b_out,
            double lam, double inv_scale, real[::1] out, real[::1] target, int feature_set=0) -> None:
    """The float model's output (in units of `scale`) and the training target of every record, the
    inputs those of `feature_set`."""
    cdef Py_ssize_t n = records.shape[0], hidden = W.shape[1], i, buckets = b_out.shape[0]
    cdef int32_t white[MAX_FEATURES]
    cdef int32_t black[MAX_FEATURES]
    cdef const int32_t* ours
    cdef const int32_t* theirs
    cdef int count, stm, bucket, bad = 0
    cdef real* acc_us
    cdef real* acc_them
    check_shapes(records.shape[1], W.shape[0], hidden, bias.shape[0], w_out.shape[0], buckets)
    check_feature_set(feature_set)
    if out.shape[0] < n or target.shape[0] < n:
        raise ValueError("output buffers too small")
    acc_us = <real*>malloc(2 * hidden * sizeof(real))
    if acc_us == NULL:
        raise MemoryError()
    acc_them = acc_us + hidden
    try:
        with nogil:
            for i in range(n):
                count = decode_record(&records[i, 0], white, black, &stm, feature_set)
                if count < 0:
                    bad += 1
                    out[i] = 0
                    target[i] = 0
                    continue
                ours = &white[0] if stm == 0 else &black[0]
                theirs = &black[0] if stm == 0 else &white[0]
                accumulate(ours, count, &W[0, 0], &bias[0], acc_us, hidden)
                accumulate(theirs, count, &W[0, 0], &bias[0], acc_them, hidden)
                bucket = nnue_output_bucket(count, <int>buckets)
                out[i] = <real>(screlu_dot(acc_us, &w_out[2 * bucket * hidden], hidden)
                                + screlu_dot(acc_them, &w_out[(2 * bucket + 1) * hidden], hidden) + b_out[bucket])
                target[i] = <real>record_target(&records[i, 0], lam, inv_scale)
    finally:
        free(acc_us)
    if bad:
        raise ValueError(f"{bad} records hold a bad piece code")


def train_batch(const uint8_t[:, ::1] records, real[:, ::1] W, real[::1] bias, real[::1] w_out, real[::1] b_out,
                double lam, double inv_scale, double grad_scale,
                real[:, ::1] grad_W, real[::1] grad_bias, real[::1] grad_w_out, real[::1] grad_b_out,
                int feature_set=0) -> float:
    """Forward and backward over `records` (the inputs those of `feature_set`): ADDS grad_scale times
    the gradient of the summed squared error (sigmoid(out) - target)^2 to the grad_* buffers;
    returns the summed squared error.

    grad_W is the memory-bound part: every active feature of every position adds a row.  So the
    accumulator gradients of CHUNK positions are kept (2 * CHUNK rows, in cache), their (feature, row)
    pairs sorted by feature, and each feature's row of grad_W is read and written once per chunk with
    the sum of its rows: pawns and kings on their usual squares recur in most positions.
    """
    cdef Py_ssize_t n = records.shape[0], hidden = W.shape[1], i, buckets = b_out.shape[0]
    cdef int32_t white[MAX_FEATURES]
    cdef int32_t black[MAX_FEATURES]
    cdef int32_t feature_count[INPUTS]
    cdef int32_t feature_start[INPUTS + 1]
    cdef const int32_t* ours
    cdef const int32_t* theirs
    cdef int count, stm, k, f, bucket, q = 0, pairs = 0, bad = 0
    cdef double out, p, err, dout, loss = 0.0
    cdef double sum_dout[NNUE_MAX_OUTPUT_BUCKETS]
    cdef real* w_us
    cdef real* w_them
    cdef real* acc_us
    cdef real* acc_them
    cdef real* grads
    cdef int32_t* pair_feature
    cdef int32_t* pair_row
    cdef int32_t* sorted_rows
    check_shapes(records.shape[1], W.shape[0], hidden, bias.shape[0], w_out.shape[0], buckets)
    check_feature_set(feature_set)
    if grad_W.shape[0] != INPUTS or grad_W.shape[1] != hidden or grad_bias.shape[0] != hidden \
            or grad_w_out.shape[0] != w_out.shape[0] or grad_b_out.shape[0] != buckets:
        raise ValueError("gradient buffers do not match the parameters")
    memset(sum_dout, 0, sizeof(sum_dout))
    acc_us = <real*>malloc((2 + 2 * CHUNK) * hidden * sizeof(real))
    pair_feature = <int32_t*>malloc(3 * 2 * CHUNK * MAX_FEATURES * sizeof(int32_t))
    if acc_us == NULL or pair_feature == NULL:
        free(acc_us)
        free(pair_feature)
        raise MemoryError()
    acc_them = acc_us + hidden
    grads = acc_us + 2 * hidden          # row 2q: position q's gradient of acc_us, row 2q + 1: of acc_them
    pair_row = pair_feature + 2 * CHUNK * MAX_FEATURES
    sorted_rows = pair_row + 2 * CHUNK * MAX_FEATURES
    try:
        with nogil:
            for i in range(n):
                count = decode_record(&records[i, 0], white, black, &stm, feature_set)
                if count < 0:
                    bad += 1
                else:
                    ours = &white[0] if stm == 0 else &black[0]
                    theirs = &black[0] if stm == 0 else &white[0]
                    accumulate(ours, count, &W[0, 0], &bias[0], acc_us, hidden)
                    accumulate(theirs, count, &W[0, 0], &bias[0], acc_them, hidden)
                    bucket = nnue_output_bucket(count, <int>buckets)
                    w_us = &w_out[2 * bucket * hidden]
                    w_them = w_us + hidden
                    out = screlu_dot(acc_us, w_us, hidden) + screlu_dot(acc_them, w_them, hidden) + b_out[bucket]
                    p = 1.0 / (1.0 + exp(-out))
                    err = p - record_target(&records[i, 0], lam, inv_scale)
                    loss += err * err
                    dout = grad_scale * 2.0 * err * p * (1.0 - p)
                    sum_dout[bucket] += dout
                    screlu_backward(acc_us, w_us, &grad_w_out[2 * bucket * hidden], grads + 2 * q * hidden,
                                    <real>dout, hidden)
                    screlu_backward(acc_them, w_them, &grad_w_out[(2 * bucket + 1) * hidden],
                                    grads + (2 * q + 1) * hidden, <real>dout, hidden)
                    add_row(&grad_bias[0], grads + 2 * q * hidden, hidden)
                    add_row(&grad_bias[0], grads + (2 * q + 1) * hidden, hidden)
                    for k in range(count):
                        pair_feature[pairs] = ours[k]
                        pair_row[pairs] = 2 * q
                        pair_feature[pairs + 1] = theirs[k]
                        pair_row[pairs + 1] = 2 * q + 1
                        pairs += 2
                    q += 1
                if q == CHUNK or (i == n - 1 and q > 0):
                    # Counting sort of the pairs by feature, then one pass per feature over grad_W.
                    memset(feature_count, 0, sizeof(feature_count))
                    for k in range(pairs):
                        feature_count[pair_feature[k]] += 1
                    feature_start[0] = 0
                    for f in range(INPUTS):
                        feature_start[f + 1] = feature_start[f] + feature_count[f]
                    for k in range(pairs):
                        f = pair_feature[k]
                        sorted_rows[feature_start[f + 1] - feature_count[f]] = pair_row[k]
                        feature_count[f] -= 1
                    for f in range(INPUTS):
                        if feature_start[f + 1] > feature_start[f]:
                            add_rows(&grad_W[f, 0], grads, sorted_rows + feature_start[f],
                                     feature_start[f + 1] - feature_start[f], hidden)
                    q = 0
                    pairs = 0
            for k in range(buckets):
                grad_b_out[k] += <real>sum_dout[k]
    finally:
        free(acc_us)
        free(pair_feature)
    if bad:
        raise ValueError(f"{bad} records hold a bad piece code")
    return loss
