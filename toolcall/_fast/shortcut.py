"""An event that repeats the envelope of the one before, read from its bytes in one step.

A live socket hands the builder one event at a time, and in a streamed call nearly every event
is the one before with another few characters of arguments (or of text). The framing's decoder
and the wire's reader each already take such an event by its envelope without decoding it
(`SSEDecoder`, `_fast.templates`), but passing it from one to the other costs more than reading
it: on the short events of Anthropic's and the Responses API's wires, the calls between them were
most of the cost. So once the framing says how the last event was framed (`envelope`: its bytes
before the payload and after it) and the reader says which template the next event most likely
matches (`next_template`), the two are joined into one: the bytes of the framing and of the
template's prefix are compared at once, the rest is made text, and the template reads it.

An event it takes is exactly one the decoder and the reader would have read to the same end:
the same framing, nothing held between events, within the size limit, valid UTF-8, and a
template match, which leaves no room for a line end inside it. Anything else (another kind of
event, a miss, a slice of several events or of part of one) goes the ordinary way, which learns
the next shortcut.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Template(Protocol):
    """What a wire's reader learned of the last event's envelope (`_fast.templates`)."""

    @property
    def prefix(self) -> str: ...

    def rest(self, text: str, start: int) -> str | None: ...


class Shortcut:
    """The framing's envelope and the reader's template, joined; `read` takes an event or
    says it did not."""

    __slots__ = ("end", "envelope", "head", "limit", "passed", "start", "tail", "take", "template")

    def __init__(
        self,
        envelope: tuple[bytes, bytes],
        template: Template,
        take: Callable[[Any, str], bool],
        passed: Callable[[int], None],
        limit: int,
    ) -> None:
        self.envelope = envelope
        before, self.tail = envelope
        self.head = before + template.prefix.encode()
        self.start = len(self.head)
        self.end = len(self.tail)
        self.template = template
        #: The reader's reading of a match, and the framing's count of bytes it did not see.
        self.take = take
        self.passed = passed
        self.limit = limit

    def read(self, data: bytes) -> bool | None:
        """Take `data` if it is one whole event with the envelope learned, and say whether the
        template that most likely follows changed (`take`); None, and nothing was read, if it
        is not such an event."""
        if not data.startswith(self.head) or not data.endswith(self.tail):
            return None
        if len(data) > self.limit:
            return None
        # No line end can hide between the two: a template match leaves none anywhere (its
        # literals are JSON strings, its fixed text came from one line, and the whitespace it
        # lets vary is spaces and tabs), so a match is one line, one event.
        try:
            rest = data[self.start : len(data) - self.end].decode()
        except UnicodeDecodeError:
            return None
        template = self.template
        fragment = template.rest(rest, 0)
        if fragment is None:
            return None
        self.passed(len(data))
        return self.take(template, fragment)
