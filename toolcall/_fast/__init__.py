"""Fast paths: ways of reading a stream that cost less and must give the plain path's answer.

Beside the plain path, never instead of it: an event that repeats the envelope of the one
before read from its bytes in one step (`shortcut`), a wire's event read by a template learned
from the one before (`templates`), a text the stream already sent recognised in the bytes of
an event that repeats it (`repeated_text`), and text kept in runs of pieces rather than a
string per piece (`text_runs`). Each is held by tests to give exactly what the plain path
gives. They import nothing of the library but the JSON reading.

`enabled` is the one switch between the two, for those tests: a `TurnBuilder` (or a wire
reader) made inside `with enabled(False):` reads every event in full, as text, and learns no
template, so takes no shortcut, and holds no event as bytes however long (`_framing`'s long
events, and so Responses' repetitions read in them). What it gives is the reference each fast
path is compared with. Two things have no such switch because they are no other path: text
runs are how text is held, and the JSON backend is chosen by `json_backend=`, which tests set
to "stdlib" for the plain reading.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# A context variable, not a module global: a test that reads the plain path in one thread (or
# task) leaves every other builder on the fast paths.
_ENABLED: ContextVar[bool] = ContextVar("toolcall_fast_paths", default=True)


def is_enabled() -> bool:
    """Whether a builder or reader made now takes the fast paths (it asks once, when made)."""
    return _ENABLED.get()


@contextmanager
def enabled(on: bool) -> Iterator[None]:
    """Builders and readers made inside take the fast paths if `on`, the plain path if not."""
    token = _ENABLED.set(on)
    try:
        yield
    finally:
        _ENABLED.reset(token)
