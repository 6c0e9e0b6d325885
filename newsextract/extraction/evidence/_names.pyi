import numpy as np

def name_scores(
    element_names: tuple[tuple[str, ...], ...], names: dict[str, float], out: np.ndarray
) -> None: ...
def word_lookup(
    words: tuple[str, ...],
    table: dict[str, float] | dict[str, int],
    missing: float,
    out: np.ndarray,
) -> None: ...
