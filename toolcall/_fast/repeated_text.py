"""Reading an event that repeats, as one of its strings, a text the stream already sent, without
making that string text again.

Responses repeats a call's arguments whole three times (`.done`, the finished item, the finished
response), each a JSON string inside an event as long as the arguments. Decoded, each repetition
is the event's text and the string read from it, beside the arguments already held: five times
their size at once. Here the event stays the UTF-8 bytes it came in
(`_framing.long_events.LongEvent`):

- the text already held is written as a JSON string, a window at a time, and its first window is
  searched for in the bytes; each following window must follow it exactly, then a closing quote.
  Only a writer that escapes as the stdlib does (`ensure_ascii=False`) is matched; any other
  spelling is no match, and the event is decoded as any other;
- the rest of the event, with each match replaced by a short string, is decoded twice, with two
  different short strings. Where the two values differ is where each match stands, and nowhere
  else: a match that was not one whole string of the event (inside another string, or a key)
  shows up as a difference of another shape, and the event is decoded as any other.

The caller gets the value with a marker of its own at each place a held text was repeated, and
the place, so that it can say which places it expects a repetition at.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from json.encoder import encode_basestring
from typing import Any

#: Characters of the held text written as JSON at a time.
_WINDOW = 16 * 1024

Path = tuple[str | int, ...]
Bytes = bytes | bytearray


def find(data: Bytes, parts: Iterable[str], at: int, stop: int) -> tuple[int, int] | None:
    """Where in `data[at:stop]` the text made of `parts` is one JSON string (its quotes
    included), spelt as the stdlib writes it; None if nowhere."""
    first = next(_written(parts), None)
    if first is None:
        return None
    head = b'"' + first
    start = data.find(head, at, stop)
    while start >= 0:
        end = start + len(head)
        # Written again for each place tried, a window at a time: a written copy of the whole
        # text would be the size of the repetition itself.
        for window in itertools.islice(_written(parts), 1, None):
            if not data.startswith(window, end):
                break
            end += len(window)
        else:
            if end < stop and data[end] == 0x22:  # the closing quote
                return start, end + 1
        start = data.find(head, start + 1, stop)
    return None


def _written(parts: Iterable[str]) -> Iterator[bytes]:
    for part in parts:
        for at in range(0, len(part), _WINDOW):
            yield encode_basestring(part[at : at + _WINDOW])[1:-1].encode()


def decode_around(
    data: Bytes, at: int, stop: int, spans: list[tuple[int, int, int]], loads: Callable[[str], Any]
) -> tuple[Any, dict[Path, int]] | None:
    """The value of the event `data[at:stop]` with each span (start, end, key) left out, and
    the place each span's key stands at in it; None where that cannot be told (see the module
    docstring). The value holds a short string at each place, which the caller replaces."""
    # Places that overlap leave two short strings side by side, which no decoding accepts.
    spans = sorted(spans)
    values = []
    for side in "ab":
        text = bytearray()
        last = at
        for number, (start, end, _) in enumerate(spans):
            text += data[last:start]
            text += b'"%d%s"' % (number, side.encode())
            last = end
        text += data[last:stop]
        try:
            values.append(loads(text.decode()))
        except ValueError:  # UnicodeDecodeError and the library's `Refused` are ValueErrors
            return None
    found: dict[Path, int] = {}
    if not _differences(values[0], values[1], (), found, spans):
        return None
    if sorted(found.values()) != sorted(key for _, _, key in spans):
        return None
    return values[0], found


def _differences(
    first: Any, second: Any, path: Path, found: dict[Path, int], spans: list[tuple[int, int, int]]
) -> bool:
    """Walk two values decoded around the spans: each place they differ must be span n's two
    strings, once; False at anything else."""
    if type(first) is dict:
        if type(second) is not dict or list(first) != list(second):
            return False
        return all(
            _differences(first[name], second[name], (*path, name), found, spans) for name in first
        )
    if type(first) is list:
        if type(second) is not list or len(first) != len(second):
            return False
        return all(
            _differences(item, other, (*path, n), found, spans)
            for n, (item, other) in enumerate(zip(first, second, strict=True))
        )
    if first == second and type(first) is type(second):
        return True
    if type(first) is not str or type(second) is not str:
        return False
    number = first[:-1]
    if (
        not (number.isascii() and number.isdigit())
        or first != number + "a"
        or second != number + "b"
    ):
        return False
    index = int(number)
    if index >= len(spans) or path in found:
        return False
    found[path] = spans[index][2]
    return True
