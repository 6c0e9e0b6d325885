import numpy as np

def name_scores(
    element_names: tuple[tuple[str, ...], ...], names: dict[str, float], out: np.ndarray
) -> None: ...
def word_values(
    words: tuple[str, ...], table: dict[str, float], missing: float, out: np.ndarray
) -> None: ...
def word_rows(
    words: tuple[str, ...], index: dict[str, int], unknown: int, out: np.ndarray
) -> None: ...
