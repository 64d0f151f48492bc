"""Fast paths: ways of reading a stream that cost less and must give the plain path's answer.

Beside the plain path, never instead of it: an event that repeats the envelope of the one
before read from its bytes in one step (`shortcut`), a wire's event read by a template learned
from the one before (`templates`), a text the stream already sent recognised in the bytes of
an event that repeats it (`repeated_text`), and text kept in runs of pieces rather than a
string per piece (`text_runs`). Each is held by tests to give exactly what the plain path
gives. They import nothing of the library but the JSON reading.
"""
