"""Recognise a chunk that repeats the previous fragment chunk's envelope, without decoding it.

Almost every chunk of a streamed call is the same envelope (ids, model, fingerprint, index) around
a few characters of arguments; decoding the whole envelope again for each is nearly all the cost
of the stream. The same holds for a stream of text or of reasoning. So once a chunk that carries
nothing but one arguments fragment, or one piece of text or reasoning, has been decoded the
ordinary way, its text is split into the part before the fragment's string literal and the
part after it. A later payload that starts with the same prefix and, after one JSON string
literal, ends with the same suffix decodes to the same chunk with only that string changed: JSON's
grammar leaves no other reading, because the bytes around the literal are identical. Only the
literal is then decoded, by the same C routine `json.loads` uses for strings.

Two allowances keep real streams on this path: OpenAI ends every chunk with a random
`"obfuscation"` string, so a final string member that the reader never looks at may vary too; and
anything unusual (escaped keys, a second `"arguments":`, whitespace the template did not have)
simply misses, falling back to full decoding. So does a literal holding a lone surrogate, which the
string decoder accepts and full decoding refuses on both backends. A miss costs a prefix
comparison; a wrong match is impossible by construction, which the property tests check against
full decoding, on both backends.
"""

from __future__ import annotations

import json.decoder
import re
from collections.abc import Callable, Mapping
from typing import Any

from .._json import holds_surrogate

#: The C string decoder behind `json.loads` (typeshed does not declare it).
scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

_ARGUMENTS_KEY = '"arguments":'
#: What a template's literal is: a call's arguments fragment, a piece of text, or of reasoning.
ARGUMENTS, CONTENT, REASONING = 0, 1, 2
#: Keys of a chunk the reader looks at; a varying final member may never be one of them.
_READ_KEYS = frozenset({"choices", "usage", "error"})


class LiteralTemplate:
    """An event's text cut at one string literal: the fixed prefix before it, which a payload
    must start with, and a rule for what may follow it (`rest`, one per kind of template).

    Two kinds, because the wires' envelopes differ after the literal, and the hottest stream
    (chat completions) must not pay for what only the others need:

    - `SuffixTemplate` (chat): after the literal, a fixed suffix, or that suffix up to one
      final string member that varies (OpenAI's `obfuscation`); checked by `endswith` and
      one string scan. A chat reader keeps one per call being streamed (parallel calls
      interleave), so a template also says what its literal is (arguments of which call,
      text or reasoning) and which template followed it last time.
    - `PatternTemplate` (every other wire): after the literal, fixed text with holes of
      varying members anywhere in it (Responses' `obfuscation` and `sequence_number`) and
      padding around the closing brace (Anthropic), checked by one compiled pattern; a
      reader keeps one at a time, and its `sink` says where a match's fragment goes.

    Both give `_fast.shortcut.Template`: the builder's shortcut takes either.
    """

    __slots__ = ("prefix", "start")

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        # Kept rather than measured per chunk: `match` runs once per chunk of every stream.
        self.start = len(prefix)

    def match(self, text: str) -> str | None:
        """The fragment `text` carries if it has this envelope, else None."""
        if not text.startswith(self.prefix):
            return None
        return self.rest(text, self.start)

    def rest(self, text: str, start: int) -> str | None:
        """The fragment, if `text` from `start` (just past the prefix) is the rest of this
        envelope, else None."""
        raise NotImplementedError


class SuffixTemplate(LiteralTemplate):
    """The envelope of one chat chunk that carried one arguments fragment or one piece of
    text or reasoning, cut at that literal (see `LiteralTemplate` for why chat has its own)."""

    __slots__ = (
        "call_type",
        "following",
        "kind",
        "suffix",
        "suffix_length",
        "varying_tail",
        "wire_index",
    )

    def __init__(
        self,
        prefix: str,
        suffix: str,
        varying_tail: bool,
        wire_index: int,
        call_type: Any,
        kind: int = ARGUMENTS,
    ) -> None:
        super().__init__(prefix)
        self.suffix = suffix
        self.suffix_length = len(suffix)
        self.varying_tail = varying_tail
        self.wire_index = wire_index
        self.call_type = call_type
        self.kind = kind
        #: The template whose chunk came after this one's last time (the chunk reader's guess).
        self.following: SuffixTemplate | None = None

    def rest(self, text: str, start: int) -> str | None:
        """The fragment, if `text` from `start` (just past the prefix) is the rest of this
        envelope around one string literal, else None."""
        try:
            fragment, end = scanstring(text, start)
        except ValueError:
            return None
        # A lone surrogate can only come from an escape, and an escape shortens the literal.
        if end - start - 1 != len(fragment) and holds_surrogate(fragment):
            return None  # full decoding refuses it, with the message both backends give
        suffix = self.suffix
        if not self.varying_tail:
            return (
                fragment
                if len(text) - end == self.suffix_length and text.endswith(suffix)
                else None
            )
        if not text.startswith(suffix, end):
            return None
        start = end + self.suffix_length
        try:
            ignored, tail_end = scanstring(text, start)
        except ValueError:
            return None
        if tail_end - start - 1 != len(ignored) and holds_surrogate(ignored):
            return None  # ignored by the reader, but refused by full decoding all the same
        return fragment if tail_end == len(text) - 1 and text[-1] == "}" else None


def learn(text: str, chunk: dict[str, Any]) -> SuffixTemplate | None:
    """A template from a decoded chunk, if it carries nothing but one arguments fragment or one
    piece of text or reasoning.

    "Nothing but" is judged exactly as the chunk reader and the assembler's fast path read a
    chunk, so taking the literal alone has the same effect as reading the whole chunk.
    """
    call = _only_fragment(chunk)
    if call is not None:
        key, literal = "arguments", call["function"]["arguments"]
        wire_index, call_type, kind = call["index"], call.get("type"), ARGUMENTS
    else:
        found = _only_text(chunk)
        if found is None:
            return None
        key, literal, kind = found
        wire_index, call_type = -1, None
    split = split_at_literal(text, key, literal)
    if split is None:
        return None
    prefix, suffix = split
    tail = _varying_tail(suffix, chunk)
    if tail is not None:
        return SuffixTemplate(prefix, tail, True, wire_index, call_type, kind)
    if "\\" in suffix:
        return None
    return SuffixTemplate(prefix, suffix, False, wire_index, call_type, kind)


def split_at_literal(text: str, key: str, literal: str) -> tuple[str, str] | None:
    """`text` before and after the string literal of member `key`, which decodes to `literal`,
    if the text says so unambiguously: `key` once, and no backslash before the literal."""
    # With no backslash outside the literal, every key is written literally, so a single
    # `"key"` in the text can only be the key of the literal (checked once the split is known).
    quoted = f'"{key}"'
    if text.count(quoted) != 1:
        return None
    start = text.find(quoted + ":") + len(quoted) + 1
    if start < len(quoted) + 1:
        return None
    while text[start : start + 1] in (" ", "\t", "\n", "\r"):
        start += 1
    if text[start : start + 1] != '"':
        return None
    try:
        fragment, end = scanstring(text, start + 1)
    except ValueError:
        return None
    if fragment != literal:
        return None
    prefix, suffix = text[: start + 1], text[end:]
    if "\\" in prefix:
        return None
    return prefix, suffix


def _only_text(chunk: dict[str, Any]) -> tuple[str, str, int] | None:
    """(key, piece, kind) if the chunk carries one piece of text or reasoning and nothing else."""
    delta = _only_delta(chunk)
    if delta is None or delta.get("tool_calls"):
        return None
    content = delta.get("content")
    reasoning_key = "reasoning_content" if delta.get("reasoning_content") else "reasoning"
    reasoning = delta.get(reasoning_key)
    if content and not reasoning and type(content) is str:
        return "content", content, CONTENT
    # With `reasoning_content` emptied, the reader would fall back to `reasoning`: only learn
    # it when that fallback is empty too.
    if reasoning and not content and type(reasoning) is str:
        if reasoning_key == "reasoning_content" and delta.get("reasoning"):
            return None
        return reasoning_key, reasoning, REASONING
    return None


def _only_delta(chunk: dict[str, Any]) -> dict[str, Any] | None:
    """The delta of a one-choice chunk without usage or a finish, which is all it carries."""
    if chunk.get("usage") or chunk.get("error"):
        return None
    choices = chunk.get("choices")
    if type(choices) is not list or len(choices) != 1:
        return None
    choice = choices[0]
    if type(choice) is not dict or choice.get("index", 0) != 0:
        return None
    if choice.get("finish_reason") or choice.get("usage"):
        return None
    delta = choice.get("delta")
    return delta if type(delta) is dict else None


def _only_fragment(chunk: dict[str, Any]) -> dict[str, Any] | None:
    delta = _only_delta(chunk)
    if delta is None:
        return None
    if delta.get("content") or delta.get("reasoning_content") or delta.get("reasoning"):
        return None
    calls = delta.get("tool_calls")
    if type(calls) is not list or len(calls) != 1 or type(calls[0]) is not dict:
        return None
    call: dict[str, Any] = calls[0]
    function = call.get("function")
    if type(call.get("index")) is not int or type(function) is not dict:
        return None
    if call.get("id") not in (None, "") or function.get("name") not in (None, ""):
        return None
    if call.get("extra_content") is not None:
        return None
    call_type = call.get("type")
    if call_type is not None and type(call_type) is not str:
        return None
    if type(function.get("arguments")) is not str or not function["arguments"]:
        return None
    return call


def _varying_tail(suffix: str, chunk: dict[str, Any]) -> str | None:
    """The suffix up to the opening quote of a final string member the reader ignores, if any."""
    last = next(reversed(chunk))
    value = chunk[last]
    if last in _READ_KEYS or type(value) is not str or not last.isidentifier():
        return None
    key = f'"{last}":"'
    at = suffix.rfind(key)
    if at <= 0 or "\\" in suffix[:at]:
        return None
    opening = at + len(key)
    try:
        found, end = scanstring(suffix, opening)
    except ValueError:
        return None
    if found != value or end != len(suffix) - 1 or suffix[-1] != "}":
        return None
    return suffix[:opening]


#: Kinds of member the wire readers let vary between events: members they never read.
STRING_HOLE, INTEGER_HOLE = 0, 1
#: The whitespace a template lets vary around an event's closing brace: JSON's, but for the
#: line ends, which no event of a line framing holds (so that a match is always one line:
#: `_fast.shortcut` relies on it).
_PADDING = " \t"
#: An integer both backends read alike: short of 19 digits (see `_json._integer`).
_SHORT_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")


class PatternTemplate(LiteralTemplate):
    """The envelope of one event of another wire than chat that carried one arguments
    fragment (see `LiteralTemplate` for why it is not chat's).

    As `SuffixTemplate`, with holes after the literal instead of one varying tail: members
    the reader never reads whose values change with every event (Responses' `obfuscation`
    string and `sequence_number`), wherever the wire puts them after the fragment. A hole
    holds a string literal or a short integer, which both backends read without refusing.

    The event's closing brace may have spaces and tabs around it: Anthropic pads its events
    with a varying run of spaces before that brace, and whitespace between tokens changes
    nothing JSON reads. The last fixed text is kept without the brace and the whitespace, so
    an event padded otherwise than the one learned from still matches, where requiring the
    same padding made nearly every padded event a miss, decoded in full and learned again.
    """

    __slots__ = ("after", "sink", "wire_index")

    def __init__(self, prefix: str, pieces: list[tuple[str, int | None]], wire_index: int) -> None:
        super().__init__(prefix)
        #: What follows the literal, as one pattern: each fixed text, then the hole after it
        #: (none after the last, which stops short of the closing brace and its padding).
        self.after = re.compile(
            "".join(
                re.escape(fixed) + ("" if hole is None else _HOLES[hole]) for fixed, hole in pieces
            )
            + _CLOSING
        )
        self.wire_index = wire_index
        #: Where a match's fragment goes, set by the reader that learned the template, as
        #: nothing it looked at can change while the template lives: most often the call the
        #: fragment is arguments of (`CallTable.extend` with that call); for Vertex's
        #: `partialArgs`, the string value the piece goes on.
        self.sink: Callable[[str], None] | None = None

    def rest(self, text: str, start: int) -> str | None:
        """The fragment, if `text` from `start` (just past the prefix) is the rest of this
        envelope, else None."""
        try:
            fragment, at = scanstring(text, start)
        except ValueError:
            return None
        # A lone surrogate can only come from an escape, which makes the literal longer than
        # what it decodes to, and is never ASCII.
        if at - start - 1 != len(fragment) and not fragment.isascii() and holds_surrogate(fragment):
            return None  # full decoding refuses it, with the message both backends give
        return fragment if self.after.fullmatch(text, at) is not None else None


#: A hole's pattern: a JSON string's rest after its opening quote, as the strict decoder reads
#: it (no control character, only JSON's escapes, and no surrogate escape, which full decoding
#: may refuse), or an integer both backends read alike (short of 19 digits, see
#: `_json._integer`).
_HOLES = {
    STRING_HOLE: r'[^"\\\x00-\x1f]*'
    r'(?:\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"',
    INTEGER_HOLE: _SHORT_INTEGER.pattern,
}
#: The event's closing brace, with spaces and tabs around it or not (`_PADDING`).
_CLOSING = r"[ \t]*\}[ \t]*"


def pattern_template(
    text: str, key: str, literal: str, holes: Mapping[str, int], wire_index: int
) -> PatternTemplate | None:
    """A template from an event's `text` whose member `key` is the fragment `literal`; the
    members named in `holes` (with their kind), when they follow it once each, may vary."""
    split = split_at_literal(text, key, literal)
    if split is None:
        return None
    prefix, suffix = split
    # With no backslash in the fixed text, a `"name":` found there is a key: a quote inside a
    # string literal is escaped, and so then is the one after the name.
    spots = []
    for name, kind in holes.items():
        opening = f'"{name}":"' if kind == STRING_HOLE else f'"{name}":'
        where = suffix.find(opening)
        if where >= 0 and suffix.find(opening, where + 1) < 0:
            spots.append((where + len(opening), kind))
    pieces: list[tuple[str, int | None]] = []
    at = 0
    for begin, kind in sorted(spots):
        if begin < at:
            return None
        if kind == STRING_HOLE:
            try:
                end = scanstring(suffix, begin)[1]
            except ValueError:
                return None
        else:
            found = _SHORT_INTEGER.match(suffix, begin)
            # Followed by a digit, it was longer than a short integer: no hole for it.
            if found is None or suffix[found.end() : found.end() + 1].isdigit():
                return None
            end = found.end()
        pieces.append((suffix[at:begin], kind))
        at = end
    # The text ends with the event's closing brace: the last fixed text is kept without it and
    # the whitespace around it, which `match` lets vary.
    last = suffix[at:].rstrip(_PADDING)
    if not last.endswith("}"):
        return None
    pieces.append((last[:-1].rstrip(_PADDING), None))
    if any("\\" in fixed for fixed, _ in pieces):
        return None
    return PatternTemplate(prefix, pieces, wire_index)
