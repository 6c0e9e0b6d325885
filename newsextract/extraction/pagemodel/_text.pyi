import numpy as np

#: The bits of the character property table (features._CHAR_PROPERTIES), by name.
PROPERTY_BITS: dict[str, int]

def fill_text_counts(
    joined: str, table: np.ndarray, lengths: np.ndarray, words: np.ndarray, counts: np.ndarray
) -> None: ...
def token_table(lowered: str, sizes: np.ndarray, token_chars: np.ndarray) -> tuple[str, ...]: ...
def upper_case_table() -> bytearray: ...
