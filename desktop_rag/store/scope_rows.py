"""Which rows of an in-memory index a document scope allows: the BM25 snapshot and the vector
copy both keep a document code per row, and filter the same way."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from desktop_rag.domain import DocScope


def allowed_rows(
    doc_of_row: npt.NDArray[np.int32], doc_codes: dict[str, int], scope: DocScope
) -> npt.NDArray[np.bool_] | None:
    """True for the rows `scope` allows (None: all are allowed)."""
    if scope.whole_library:
        return None
    named = scope.included if scope.included is not None else scope.exclude
    codes = np.asarray([doc_codes[d] for d in named if d in doc_codes], dtype=np.int32)
    inside = np.isin(doc_of_row, codes)
    return inside if scope.included is not None else ~inside
