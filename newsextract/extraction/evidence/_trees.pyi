import numpy as np

def tree_logits(
    x: np.ndarray,
    features: np.ndarray,
    thresholds: np.ndarray,
    leaves: np.ndarray,
    base: float,
    out: np.ndarray,
) -> None: ...
