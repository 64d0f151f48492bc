"""A sans-IO Server-Sent Events decoder for chat-completions streams.

It does no I/O because the same body reaches it in very different slices: vcrpy replay hands the
whole body over as one chunk, while live HTTP splits it anywhere, even between the `\\r` and `\\n`
of one terminator or inside a multi-byte character. Feeding bytes in and taking payloads out makes
both paths one code path, so a test against a cassette proves the live path too.

The parsing follows the WHATWG event-stream rules rather than a "split on `\\n\\n`" shortcut,
because providers do use the corners: DeepSeek sends `: keep-alive` comment lines while it is
under load, and Gemini-style servers end lines with `\\r\\n`.

The decoder sits on the hot path of every chunk, so it is built around the common body, made only
of `data: {...}\\n\\n` events: line terminators are normalised to `\\n` once (exact, since a field
value can never hold CR or LF), and the text is cut where a blank line is followed by a `data: `
line, so an event that is one `data: ` line costs one piece of one `str.split`. Only newly
arrived text is searched for a boundary, so a huge line that arrives in tiny slices stays linear.

An event is held whole until its blank line arrives, so its size is bounded here, as text comes
in (`max_event_chars`), not after it was buffered, joined and decoded: memory then follows the
limits, not the input. An event of one `data: ` line held past `LONG_EVENT_BYTES` is held as its
payload's bytes instead, and `take` hands it over as a `LongEvent`: a megabyte payload a reader
can check without making it text (Responses repeats a call's arguments whole, three times)
costs its UTF-8 bytes rather than twice its text. Errors come in stream order however the body
is split: a bad byte or an oversized event is reported after the events before it have been
returned.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterator
from typing import ClassVar, NamedTuple, cast

from .._errors import LimitExceeded, StreamError, check_limit
from .long_events import LongEvent

__all__ = ["DEFAULT_MAX_EVENT_CHARS", "SSEDecoder", "Span", "spans"]

DEFAULT_MAX_EVENT_CHARS = 64 * 1024 * 1024
#: An event of one `data: ` line held longer than this is held as bytes (`LongEvent`).
LONG_EVENT_BYTES = 64 * 1024
#: The last byte of a slice that ends at an event boundary, when nothing is held.
_LINE_END = (b"\n", b"\r")
#: An `event:` line longer than this is no event name: its event is not held as bytes.
_EVENT_NAME_CHARS = 1024
#: Comment lines kept as text; the rest are only counted. A provider that stalls may send
#: keep-alives for as long as it likes.
COMMENTS_KEPT = 100


class SSEDecoder:
    """Turns slices of an SSE body into the `data` payloads of its events.

    `comments` keeps the first comment lines rather than dropping them, because a keep-alive is
    evidence that the provider was stalling (DeepSeek sends them under load) and a caller may want
    to report it; `comment_count` counts them all. `unterminated_final_event` is set when the body
    stopped after the last event's line terminator but before its blank line: nothing was lost,
    so the event is dispatched, but the flag lets a caller name the provider that breaks the
    framing.

    An event longer than `max_event_chars` characters raises `LimitExceeded`. Its size is the
    text of its lines with their terminators (after `\\r\\n` and `\\r` became `\\n`), without the
    blank lines around it, so the limit is crossed at the same event however the body is split.

    When a slice holds complete events and then a bad byte or an oversized event, `feed` returns
    those events and keeps the error in `error`; the next call raises it. A caller that reads the
    events first (a provider's error event among them) sees what the stream said in its order.
    """

    __slots__ = (
        "_as_text",
        "_at_boundary",
        "_buf",
        "_cr",
        "_decode",
        "_held",
        "_last",
        "_limit",
        "_offset",
        "_raw",
        "_raw_at",
        "_raw_ended",
        "_raw_head",
        "_started",
        "_utf8",
        "comment_count",
        "comments",
        "error",
        "unterminated_final_event",
    )

    #: SSE has no mark of its own that ends a body (each wire has its own last event).
    end_absent: ClassVar[str | None] = None

    #: Bytes an event is held as text before it is held as bytes.
    long_from: ClassVar[int] = LONG_EVENT_BYTES

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        self._limit = check_limit("max_event_chars", max_event_chars)
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._decode = self._utf8.decode
        # A long event held as bytes: its payload so far, the body's byte offset where that
        # began, the text before it (`data: `, after an `event:` line or not), and the line
        # ends read after it (1: its line ended and only its blank line is still to come).
        self._raw: bytearray | None = None
        self._raw_at = 0
        self._raw_head = ""
        self._raw_ended = 0
        # The event held is text to its end: it is not one `data: ` line, or it was bytes and
        # left them. Looked at once per event, as that look joins what the event holds so far.
        self._as_text = False
        # Text after the last event boundary, in the pieces it arrived in: joined only once a
        # boundary shows up, so a long line fed in small slices is never re-concatenated per feed.
        self._buf: list[str] = []
        # The slice ended with `\r`: already a whole terminator (so its event is not held back),
        # but a `\n` opening the next slice belongs to it and must not count as a second one.
        # So too while a long event is held as bytes, for the line ends after its payload.
        self._cr = False
        # Characters of the event in `_buf`, not counting blank lines before it.
        self._held = 0
        self._offset = 0
        self._started = False
        # Nothing is held (no bytes of a character, no text of an event; a `\r` whose `\n` may
        # follow is in `_cr`): the next slice starts a new event, so one that is exactly one
        # `data: ` line can skip the general path.
        self._at_boundary = True
        # The last slice, when it was one event taken by the fast path: its envelope, for the
        # builder's shortcut (`envelope`).
        self._last: bytes | None = None
        self.comments: list[str] = []
        self.comment_count = 0
        self.error: StreamError | None = None
        self.unterminated_final_event = False

    def feed(self, data: bytes) -> list[str]:
        """Take the next slice of the body; return the payloads of the events it completes."""
        return [
            payload if type(payload) is str else payload.text()  # type: ignore[union-attr]
            for payload in self.take(data)
        ]

    def take(self, data: bytes) -> list[str | LongEvent]:
        """`feed`, with a long event's payload as the `LongEvent` it was held as (the module
        docstring): what a `TurnBuilder` reads, for a reader may check it without its text.

        A live socket hands over one event at a time, most often exactly one `data: ` line and
        its blank line, or (Responses, Anthropic) an `event: ` line and then that; such a slice
        is answered directly, for it is what the general path would make of it (nothing held
        before it, no other line in it, an event name this decoder does not keep, within the
        size limit), and the general path costs more than the JSON inside it.
        """
        if self.error is not None:
            raise self.error
        if self._raw is not None:
            taken = self._feed_raw(data)
            if taken is not None:
                return taken
        else:
            start = self._one_event(data)
            if start is not None:
                # Cut at ASCII, the pieces are UTF-8 exactly when the whole is; only the payload
                # is made text, rather than the whole slice and then a copy of most of it.
                try:
                    payload = data[start + 6 : -2].decode()
                except UnicodeDecodeError:
                    pass  # the general path reports it, with its offset
                else:
                    self._offset += len(data)
                    self._started = True
                    self._last = data
                    self._cr = False
                    return [payload]
            elif (cut := self._one_event_cr(data)) is not None:
                try:
                    payload = data[cut[0] : cut[1]].decode()
                except UnicodeDecodeError:
                    pass
                else:
                    self._took(data)
                    return [payload]
        self._at_boundary = False
        self._last = None
        out = cast("list[str | LongEvent]", self._feed(data))
        # A slice that ends with a line end and leaves nothing held ends between events,
        # whichever line ends it has.
        self._at_boundary = not self._buf and self.error is None and data[-1:] in _LINE_END
        if self._held >= self.long_from and not self._as_text and self.error is None:
            self._hold_as_bytes()
        return out

    def take_whole(self, data: bytes) -> LongEvent | None:
        """A slice that is exactly one long event of one `data: ` line, with nothing held (a
        megabyte event as a socket or a test hands it over): its payload as a `LongEvent` over
        the slice itself, not copied, checked as UTF-8 only when made text; None for any other
        slice, which `take` reads."""
        if self._raw is not None or self.error is not None:
            return None
        start = self._one_event(data)
        cut = (start + 6, len(data) - 2) if start is not None else self._one_event_cr(data)
        if cut is None:
            return None
        event = LongEvent(data, cut[0], cut[1], self._offset + cut[0])
        self._took(data)
        return event

    def _took(self, data: bytes) -> None:
        """`data`, one event, was taken by a fast path (`take` inlines this for `\\n`)."""
        self._offset += len(data)
        self._started = True
        self._last = data
        self._cr = data[-1] == 0x0D  # a `\n` opening the next slice is then this `\r`'s

    def _one_event(self, data: bytes) -> int | None:
        """Where the `data: ` line begins in a slice that is one event of that one line (after
        one `event:` line or not), its line ends `\\n`, with nothing held before it, within the
        size limit; None for any other (`_one_event_cr` reads those of `\\r\\n` and `\\r`).
        Bytes' `in` and `count` cost several times str's, so these are finds that stop at the
        first line ends (early in a larger slice)."""
        if not self._at_boundary or data[-1:] != b"\n" or len(data) > self._limit:
            return None
        end = len(data) - 2
        line = data.find(b"\n")
        start = 0 if line == end else line + 1
        if not (
            (start == 0 or (data.startswith(b"event:") and data.find(b"\n", start) == end))
            and data.find(b"\r") < 0
            and data.startswith(b"data: ", start)
        ):
            return None
        if start:
            try:
                data[:start].decode()
            except UnicodeDecodeError:
                return None  # the general path reports it, with its offset
        return start

    def _one_event_cr(self, data: bytes) -> tuple[int, int] | None:
        """`_one_event` for a slice whose line ends are all `\\r\\n` (Google's) or all `\\r`:
        where its payload begins and ends."""
        if not self._at_boundary or len(data) > self._limit:
            return None
        cut = _cr_event(data)
        if cut is not None and cut[0] > 6:
            try:
                data[: cut[0] - 6].decode()
            except UnicodeDecodeError:
                return None  # the general path reports it, with its offset
        return cut

    def _hold_as_bytes(self) -> None:
        """Hold the event in progress as its payload's bytes, if it is one `data: ` line so
        far (after an `event:` line or not): its text is encoded back once, and what follows
        is kept as it comes, undecoded (`_feed_raw`)."""
        event = "".join(self._buf).lstrip("\n")  # blank lines before an event are not in it
        start = 0
        if event.startswith("event:"):
            start = event.find("\n") + 1
            if start == 0:  # its event line still arriving: looked at again, unless absurd
                self._as_text = len(event) > _EVENT_NAME_CHARS
                return
        if len(event) < start + 6 and "data: ".startswith(event[start:]):
            return  # its `data: ` still arriving (a body held as bytes from its first bytes)
        if event.find("\n", start) >= 0 or not event.startswith("data: ", start):
            self._as_text = True
            return
        raw = bytearray(event[start + 6 :].encode())
        # Bytes of a character still arriving belong to the payload too.
        raw += self._utf8.getstate()[0]
        self._utf8.reset()
        self._buf.clear()
        self._raw = raw
        self._raw_at = self._offset - len(raw)
        self._raw_head = event[: start + 6]

    def _feed_raw(self, data: bytes) -> list[str | LongEvent] | None:
        """A slice for a long event held as bytes: its payload goes on, or ends at its line's
        end and blank line (the event is returned, then what follows is read), each of them
        `\\n`, `\\r\\n` or `\\r`, split anywhere. Anything else (another line in the event, the
        limit near) makes the event text again, as the general path holds it, and gives None:
        the general path reads the slice then."""
        raw = self._raw
        assert raw is not None
        stop = size = 0
        if not self._raw_ended:
            end = data.find(b"\n")
            stop = data.find(b"\r", 0, len(data) if end < 0 else end)
            if stop < 0:
                stop = len(data) if end < 0 else end
            # The event's size counts its line's terminator too (see the class docstring).
            size = stop if stop == len(data) else stop + 1
            if self._held + size > self._limit:
                self._leave_raw()
                return None
        read = _line_ends(data, stop, self._raw_ended, self._cr)
        if read is None:
            self._leave_raw()
            return None
        raw += data[:stop]
        self._held += size
        taken, self._raw_ended, self._cr = read
        if self._raw_ended < 2:
            self._offset += len(data)
            return []
        return self._end_raw(data, taken)

    def _end_raw(self, data: bytes, taken: int) -> list[str | LongEvent]:
        """The long event ended with `data[:taken]`: return it, then what the rest gives."""
        assert self._raw is not None
        event = LongEvent(self._raw, 0, len(self._raw), self._raw_at)
        self._raw = None
        self._raw_ended = 0
        self._held = 0
        self._as_text = False
        self._offset += taken
        self._at_boundary = True
        out: list[str | LongEvent] = [event]
        if taken < len(data):
            try:
                out += self.take(data[taken:])
            except StreamError as exc:  # LimitExceeded is one too
                self.error = exc  # raised at the next call, after the event before it
        return out

    def _leave_raw(self) -> None:
        """Make the long event held as bytes text again, held as the general path holds it."""
        raw = self._raw
        assert raw is not None
        self._raw = None
        if self._raw_ended:
            raw += b"\n"  # decoded with the bytes before it, as the text path decodes it
            self._raw_ended = 0  # a `\r` whose `\n` may follow stays in `_cr`, as `_feed` keeps it
        try:
            text = self._decode(bytes(raw))
        except UnicodeDecodeError as exc:
            self.error = StreamError(
                f"SSE body is not valid UTF-8 at byte offset {self._raw_at + exc.start}: "
                f"{exc.reason}"
            )
            raise self.error from None
        self._buf = [self._raw_head + text]
        self._held = len(self._buf[0])
        self._as_text = True
        self._at_boundary = False

    def envelope(self) -> tuple[bytes, bytes] | None:
        """The bytes before and after the payload of the last slice, if it was one event of one
        `data: ` line (after an `event: ` line or not) and nothing is held: a slice that repeats
        them around another payload is an event this decoder would return alone
        (`_shortcut`)."""
        last = self._last
        if last is None or not self._at_boundary or self.error is not None:
            return None
        # The fast path took it: a `data: ` line, after one `event:` line or not, and its blank
        # line, their line ends all one of the three.
        eol = b"\n" if last[-2:] == b"\n\n" else b"\r\n" if last[-2:] == b"\r\n" else b"\r"
        end = len(last) - 2 * len(eol)
        line = last.find(eol)
        start = 0 if line == end else line + len(eol)
        return last[: start + 6], last[end:]

    def passed(self, size: int) -> None:
        """A slice of `size` bytes was one event read without this decoder (`_shortcut`): it
        counts for the offsets errors give."""
        self._offset += size

    def _feed(self, data: bytes) -> list[str]:
        try:
            text = self._decode(data)
        except UnicodeDecodeError as exc:
            return self._feed_broken(exc, data)
        self._offset += len(data)
        # The BOM may itself arrive split, so wait for the first decoded character.
        if not self._started and text:
            self._started = True
            if text[0] == "\ufeff":
                text = text[1:]
        if self._cr and text:
            self._cr = False
            if text[0] == "\n":
                text = text[1:]
        if "\r" in text:
            self._cr = text[-1] == "\r"
            text = text.replace("\r\n", "\n")
            if "\r" in text:  # a lone `\r`, rare: looked for first, as a replace copies the text
                text = text.replace("\r", "\n")
        buf = self._buf
        # Everything up to the last blank line is complete: the blank line is the last `\n\n` of
        # the new text, or a leading `\n` that completes a blank line begun by the held text.
        cut = text.rfind("\n\n")
        if cut >= 0:
            end = cut + 2
        elif text[:1] == "\n" and buf and buf[-1][-1] == "\n":
            end = 1
        else:
            if text:
                self._hold(text)
                if self.error is not None:
                    raise self.error
            return []
        if buf:
            buf.append(text[:end])
            region = "".join(buf)
            buf.clear()
        else:
            region = text[:end]
        self._held = 0
        self._as_text = False
        if len(region) <= self._limit:
            out = self._dispatch(region)
        else:
            out = self._dispatch_within_limit(region)
            if self.error is not None:
                return out
        if end < len(text):
            self._hold(text[end:])
            if self.error is not None and not out:
                raise self.error
        return out

    def _feed_broken(self, exc: UnicodeDecodeError, data: bytes) -> list[str]:
        """Feed the bytes before the bad one, then keep the error (or raise it if none came)."""
        offset = self._error_offset(exc, data)
        # `exc.object` is the bytes held back from earlier slices followed by `data`.
        good = data[: max(0, exc.start - (len(exc.object) - len(data)))]
        out = self._feed(good) if good else []
        self._offset += len(data) - len(good)
        if self.error is None:
            self.error = StreamError(
                f"SSE body is not valid UTF-8 at byte offset {offset}: {exc.reason}"
            )
        if not out:
            raise self.error
        return out

    def _dispatch_within_limit(self, region: str) -> list[str]:
        """The payloads of `region` before its first event longer than the limit, if one is."""
        at = 0
        limit = self._limit
        for event in region.split("\n\n"):
            # An event's text ends with its last line's terminator, the first `\n` of the `\n\n`.
            if len(event) >= limit and len(event.lstrip("\n")) + 1 > limit:
                out = self._dispatch(region[:at]) if at else []
                self.error = self._too_long()
                if not out:
                    raise self.error
                return out
            at += len(event) + 2
        return self._dispatch(region)

    def _hold(self, text: str) -> None:
        """Keep `text`, the start of an event, unless the event is now too long (then `error`)."""
        size = len(text)
        if not self._buf and text[:1] == "\n":
            size = len(text.lstrip("\n"))  # blank lines before an event are not part of it
        self._held += size
        if self._held > self._limit:
            self._buf.clear()
            self.error = self._too_long()
        else:
            self._buf.append(text)

    def _too_long(self) -> LimitExceeded:
        return LimitExceeded(
            f"an SSE event is longer than {self._limit} characters (max_event_chars)"
        )

    def close(self) -> list[str]:
        """End of body: return a final event that lacked only its blank line.

        A body cut off inside a line raises `StreamError`, because the cut line may be a truncated
        JSON payload and dropping it quietly would hide the truncation.
        """
        if self.error is not None:
            raise self.error
        if self._raw is not None:
            self._leave_raw()
        try:
            self._decode(b"", True)
        except UnicodeDecodeError as exc:
            offset = self._error_offset(exc, b"")
            raise StreamError(
                f"SSE body ended inside a UTF-8 sequence that starts at byte offset {offset}"
            ) from None
        rest = "".join(self._buf)
        self._buf.clear()
        if not rest:
            return []
        if rest[-1] != "\n":
            line = rest.rpartition("\n")[2]
            size = len(line.encode())
            raise StreamError(
                f"SSE body ended in the middle of a line: its last {size} bytes, from byte offset"
                f" {self._offset - size}, have no line terminator"
            )
        out: list[str] = []
        self._parse(rest[:-1], out)
        self.unterminated_final_event = bool(out)
        return out

    def _dispatch(self, region: str) -> list[str]:
        """The payloads of a region of whole lines that ends with a blank line.

        Each `\\n\\ndata: ` marks a blank line (which dispatches) followed by a data line, so
        cutting there gives pieces that each start with an empty data buffer and end at a
        dispatch. A piece with no `\\n` left in it is exactly one `data: ` line: its text is the
        payload. Only pieces holding other lines go through the line-by-line parser.
        """
        # One event of one `data: ` line, after an `event: ` line or not (a long event, which
        # arrives in several slices): its payload is sliced from the region once, where the
        # cuts below would copy it three times over, a megabyte event being megabytes each.
        end = len(region) - 2
        line = region.find("\n")
        start = 0 if line == end else line + 1
        if (start == 0 or (region.startswith("event:") and region.find("\n", start) == end)) and (
            region.startswith("data: ", start)
        ):
            return [region[start + 6 : end]]
        # Cut the region itself and trim the two ends, rather than slicing it first: on a body
        # fed in one piece a slice would copy the whole body once more.
        pieces = region.split("\n\ndata: ")
        pieces[-1] = pieces[-1][:-2]
        out: list[str] = []
        if region.startswith("data: "):
            pieces[0] = pieces[0][6:]
            for piece in pieces:
                if "\n" in piece:
                    break
            else:
                return pieces
        else:
            self._parse(pieces.pop(0), out)
        for piece in pieces:
            if "\n" in piece:
                self._parse("data: " + piece, out)
            else:
                out.append(piece)
        return out

    def _parse(self, lines: str, out: list[str]) -> None:
        """The general path: comments, other fields, several `data` lines, no space after colon.

        `lines` holds whole lines joined by `\\n` and is followed by a dispatch.
        """
        data: list[str] = []
        for line in lines.split("\n"):
            if not line:
                if data:
                    out.append("\n".join(data))
                    data = []
                continue
            name, _, value = line.partition(":")
            if value[:1] == " ":
                value = value[1:]
            if name == "data":
                data.append(value)
            elif not name:
                self.comment_count += 1
                if len(self.comments) < COMMENTS_KEPT:
                    self.comments.append(value)
        if data:
            out.append("\n".join(data))

    def _error_offset(self, exc: UnicodeDecodeError, data: bytes) -> int:
        """Byte offset of the bad byte in the whole body.

        The decoder prepends bytes it held back from earlier slices, so `exc.start` counts from
        the first of those, not from the start of `data`.
        """
        return self._offset - (len(exc.object) - len(data)) + exc.start


def _cr_event(data: bytes) -> tuple[int, int] | None:
    """`SSEDecoder._one_event_cr` but for its `event:` line's UTF-8: where the payload begins
    and ends, if no `\r` or `\n` is in the slice but its lines' ends.
    Two finds run through the payload, as for `\n`: a line ends at each `\r`, and each `\n`
    must follow one (`\r\n`) or none may be (`\r`)."""
    if data.endswith(b"\r\n\r\n"):
        size = 2
    elif data.endswith(b"\r\r"):
        size = 1
    else:
        return None
    end = len(data) - 2 * size
    line = data.find(b"\r")
    start = 0 if line == end else line + size
    if size == 2:
        lines = data.find(b"\n") == line + 1 and (not start or data.find(b"\n", start) == end + 1)
    else:
        lines = data.find(b"\n") < 0
    if not (lines and data.startswith(b"data: ", start)):
        return None
    if start and not (data.startswith(b"event:") and data.find(b"\r", start) == end):
        return None
    return start + 6, end


def _line_ends(data: bytes, at: int, ends: int, cr: bool) -> tuple[int, int, bool] | None:
    """The line ends after a long event's payload, read from `data[at:]`: `ends` of them came
    before (0 or 1), the last a `\r` whose `\n` may follow if `cr`. Gives where the reading
    stopped, the line ends read so far and whether the last is a `\r` that ended the slice; at
    two (the data line's and the blank line's) the event ended there. None where the data
    line's end is followed by anything else: another line of the event."""
    size = len(data)
    while at < size:
        byte = data[at]
        if cr and byte == 0x0A:  # the `\n` of a `\r\n`
            at += 1
            cr = False
            continue
        cr = False
        if ends == 2:
            break
        if byte == 0x0D:
            cr = True
        elif byte != 0x0A:
            return None
        ends += 1
        at += 1
        if ends == 2 and not cr:
            break
    return at, ends, cr


# -- each event's bytes, for a tool that keeps them --------------------------------------------


class Span(NamedTuple):
    """One event of a whole body and the bytes it was read from: `body[start:end]`, its framing
    included (`spans`). `data` is what the decoder handed over for it, None for a block that
    carried nothing (a comment, an `event:` line alone); `comments`, its comment lines."""

    start: int
    end: int
    data: str | None
    comments: tuple[str, ...] = ()


def spans(body: bytes, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> Iterator[Span]:
    """Each event of a whole SSE body with its byte span, for a tool that must keep the body's
    bytes (the harness cuts streams and splices events into them). The decoder is fed one line
    at a time, apart from the builder's path, which keeps no offsets and pays nothing for this:
    an event ends at the blank line that made the decoder hand it over. Blank lines before an
    event are in its span, those after the last event in the last one's, so the spans put
    together give the body back. Raises the decoder's `StreamError` where it refuses the body,
    after the spans before it."""
    decoder = SSEDecoder(max_event_chars=max_event_chars)
    kept = 0

    def comments() -> tuple[str, ...]:
        nonlocal kept
        new = tuple(decoder.comments[kept:])
        kept = len(decoder.comments)
        return new

    return by_lines(body, decoder.feed, decoder.close, comments)


def by_lines(
    body: bytes,
    feed: Callable[[bytes], list[str]],
    close: Callable[[], list[str]],
    comments: Callable[[], tuple[str, ...]] = tuple,
) -> Iterator[Span]:
    """The spans of a framing read a line at a time (SSE, and NDJSON's lines): `feed` takes one
    line with its line end (`\\n`, `\\r\\n` or `\\r`) and gives what it completes, `close`
    what the end of the body does. An event ends where something was handed over, or at a blank
    line after lines that gave nothing (a comment)."""
    held: Span | None = None  # yielded once the next span begins: blank lines after it are its
    start = at = 0
    filled = False
    try:
        for line in body.splitlines(keepends=True):
            got = feed(line)
            rest = line.rstrip(b"\r\n")
            blank = not rest or (at == 0 and rest == _BOM)
            at += len(line)
            if not got and not (blank and filled):
                filled = filled or not blank
                continue
            found: list[str | None] = [*got] if got else [None]
            for data in found:
                if held is not None:
                    yield held
                held, start, filled = Span(start, at, data, comments()), at, False
        last: list[str | None] = [*close()]
        for data in last or ([None] if filled else []):
            if held is not None:
                yield held
            held, start = Span(start, at, data, comments()), at
    except StreamError:
        if held is not None:
            yield held
        raise
    if held is None:
        if body:
            yield Span(0, len(body), None, comments())
        return
    yield held._replace(end=len(body))


_BOM = b"\xef\xbb\xbf"
