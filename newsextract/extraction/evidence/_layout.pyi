import numpy as np

SUBTREE_LEVELS_DEFAULT: tuple[int, ...]
CONTAINER_MIN_CHARS_DEFAULT: int
MAJORITY_SHARE_DEFAULT: float
WINDOW_HALF_DEFAULT: int

def fill_layout(
    chars: np.ndarray,
    words: np.ndarray,
    link_chars: np.ndarray,
    counts: np.ndarray,
    tags: np.ndarray,
    ancestors: np.ndarray,
    levels: int,
    element_flags: np.ndarray,
    element_any: np.ndarray,
    name_score: np.ndarray,
    heading: np.ndarray,
    total_chars: float,
    page_chars_log: float,
    page_blocks_log: float,
    out: np.ndarray,
) -> int: ...
def fill_wording(
    token_block: np.ndarray,
    token_counts: np.ndarray,
    stop_flags: np.ndarray,
    own_flags: np.ndarray,
    stop_share: float,
    token_chars: np.ndarray,
    words: np.ndarray,
    counts: np.ndarray,
    out: np.ndarray,
    first: int,
) -> int: ...
def fill_context(
    p: np.ndarray,
    mass: np.ndarray,
    chars: np.ndarray,
    raw_chars: np.ndarray,
    link_chars: np.ndarray,
    title: np.ndarray,
    ancestors: np.ndarray,
    levels: int,
    elements: int,
    context_levels: np.ndarray,
    total_mass: float,
    page_mass_log: float,
    out: np.ndarray,
) -> int: ...
