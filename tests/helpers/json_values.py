"""JSON values for property tests: what arguments objects may hold, drawn by hypothesis.

One definition for every test that draws arguments (the assembler's properties, the wire
properties, arguments written when read), each choosing how wide its numbers and how large its
values are.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def json_values(
    *,
    integers: st.SearchStrategy[int] | None = None,
    floats: st.SearchStrategy[float] | None = None,
    text: int = 8,
    width: int = 3,
    leaves: int = 8,
) -> st.SearchStrategy[Any]:
    """Scalars (null, booleans, integers, finite floats, short text) and lists and objects of
    them, nested; `integers` and `floats` default to what a double holds exactly."""
    scalars = (
        st.none()
        | st.booleans()
        | (integers if integers is not None else st.integers(-(2**53), 2**53))
        | (floats if floats is not None else st.floats(allow_nan=False, allow_infinity=False))
        | st.text(max_size=text)
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=width)
            | st.dictionaries(st.text(max_size=5), inner, max_size=width)
        ),
        max_leaves=leaves,
    )
