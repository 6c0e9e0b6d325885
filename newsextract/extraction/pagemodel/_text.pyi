import numpy as np

#: The bits of the character property table (features._CHAR_PROPERTIES), by name.
PROPERTY_BITS: dict[str, int]

def fill_text_counts(
    joined: str, table: np.ndarray, lengths: np.ndarray, words: np.ndarray, counts: np.ndarray
) -> None: ...
def token_table(
    lowered: str, sizes: np.ndarray, token_chars: np.ndarray
) -> tuple[tuple[str, ...], bytearray]: ...
def upper_case_table() -> bytearray: ...
def fold_text(text: str) -> str: ...
def headline_matches(
    texts: tuple[str, ...],
    indexes: np.ndarray,
    always: np.ndarray,
    headlines: frozenset[str],
    min_inside: int,
    max_folded: int,
    out: np.ndarray,
) -> None: ...
def mojibake_runs(text: str, byte_of: dict[str, int]) -> tuple[str, int]: ...
def single_spaced(text: str) -> str: ...
