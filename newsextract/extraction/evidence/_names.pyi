import numpy as np

def name_scores(
    element_names: tuple[tuple[str, ...], ...], names: dict[str, float], out: np.ndarray
) -> None: ...
