"""Type stub of the compiled module tools.nnue_kernels (see nnue_kernels.pyx)."""

from typing import Any

# Buffers: C-contiguous numpy arrays (records uint8 (n, 32); features int32 (n, 32); parameters and
# gradients all float32 or all float64; w_out buckets x 2 x hidden, b_out one per output bucket).
def decode(records: Any, white: Any, black: Any, counts: Any, stm: Any, feature_set: int = 0) -> None: ...
def forward(records: Any, W: Any, bias: Any, w_out: Any, b_out: Any, lam: float, inv_scale: float,
            out: Any, target: Any, feature_set: int = 0) -> None: ...
def train_batch(records: Any, W: Any, bias: Any, w_out: Any, b_out: Any, lam: float, inv_scale: float,
                grad_scale: float, grad_W: Any, grad_bias: Any, grad_w_out: Any, grad_b_out: Any,
                feature_set: int = 0) -> float: ...
