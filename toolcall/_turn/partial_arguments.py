"""Tool-call arguments read while they stream: a view that fills in like a form, in linear time.

Peers that show partial arguments parse the whole buffer again after every fragment, so showing
a call's arguments as they arrive costs the square of their length: a file written through a tool
call, a megabyte in four-character fragments, is a quarter of a million parses of up to a
megabyte each. `PartialArguments` is a scanner that keeps its state between fragments (the open
containers, the token in progress, an escape or surrogate pair cut in two) and reads every
character once.

What `value()` shows follows pydantic-core's `from_json(text, allow_partial="trailing-strings")`,
the reading users already see elsewhere: completed members; the string in progress, as far as it
has arrived, without an escape or the first half of a surrogate pair still waiting for the rest;
containers in progress with what they hold so far. A key still arriving, a key whose value has
not started and a literal in progress (`tru`) are left out. A number in progress is shown when its
text so far is a JSON number (`12`, `1.5`, `1e5`) and left out when it is not (`-`, `1.`, `1e`),
as pydantic-core does: the value of `12` may still become `123` or `12.5`, exactly as an open
string may still grow. Once the object closes, `value()` equals `json.loads` of the whole text.

`value()` returns live objects, not a copy: the same dict on every call, whose members the
scanner fills in place as fragments arrive, and whose containers are the ones it keeps appending
to. A copy on every call would cost the size of everything read so far, the quadratic cost this
class exists to avoid. So the result is read-only, and changes as more arrives; a caller
that wants to compare two moments takes `copy.deepcopy` itself, paying for it knowingly.

The string in progress is a `str` in the view, and a `str` cannot grow: a new one on every call
would copy everything read of it so far, so showing a file written through a tool call after
every fragment would cost the square of its length. Instead `value()` appends what arrived to
the string it showed last with `+=`, having let go of its own references to it first: when no
one else holds that string (the caller read the view and moved on, as a UI rendering it does),
CPython grows it in place, and the view costs what arrived (the in-place concatenation the
Python documentation describes under "Common Sequence Operations", note 6). A caller that keeps
the string pays for a copy on the next call, as a `str` requires. `changes()` says the same
incrementally, without a `str` of the whole: the members set and the text appended since the
previous call. A number in progress is shown by converting its text so far.

Errors are the library's one reading of JSON (`_json`): besides text that can never become JSON,
NaN, Infinity, a float past a double's range, a lone surrogate (escaped or raw) and nesting
deeper than `MAX_DEPTH` raise `ArgumentsError` as soon as the fragment that breaks the rule
arrives; the arguments of a tool call must be one object, so text that starts with anything else,
or goes on after the object closes (parallel calls merged into one), is refused too. There is no
recursion, so depth is bounded by the limit and not by Python's stack. After an error, `value()`
still shows what was read before it.

Where pydantic-core reads otherwise, on purpose: text blank so far shows the empty object (it
raises: there is nothing to show, not something wrong); anything but whitespace after the object
is an error (it ignores the rest, which would hide merged calls); and what the library refuses,
it refuses (it reads NaN, `1e400` as infinity, and a top-level value of any type).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Literal, NamedTuple, NoReturn

from .._errors import ArgumentsError, UsageError, shown
from .._json import MAX_DEPTH

# Scanner states, kept as small integers for a quick dispatch in the hot loop.
_BEFORE = 0  # nothing but whitespace yet: the object's `{` comes next
_VALUE = 1  # a value comes next (after `:`, or `,` in an array)
_FIRST_VALUE = 2  # just after `[`: a value or `]`
_FIRST_KEY = 3  # just after `{`: a key or `}`
_KEY = 4  # after `,` in an object: a key
_COLON = 5  # after a key
_AFTER = 6  # after a value in a container: `,` or the container's closing bracket
_STRING = 7  # inside a string, a key or a value
_NUMBER = 8  # inside a number cut by the end of a fragment
_LITERAL = 9  # inside `true`, `false` or `null`
_DONE = 10  # the object closed: only whitespace may follow

_WHITESPACE = " \t\n\r"
_SKIP_WHITESPACE = re.compile("[ \t\n\r]*")
# A run of string characters that need no decoding: everything but the quote, the backslash,
# control characters (JSON wants them escaped) and surrogates (not Unicode text when raw).
_PLAIN = re.compile('[^"\\\\\x00-\x1f\ud800-\udfff]*')
_NUMBER_RUN = re.compile("[-+0-9.eE]*")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile("[0-9a-fA-F]*")
_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_LITERALS: dict[str, tuple[str, Any]] = {
    "t": ("true", True),
    "f": ("false", False),
    "n": ("null", None),
}
_INFINITY = float("inf")
_RUN = 64  # pieces of the string in progress joined at a time
_ABSENT = object()


def _number_automaton() -> tuple[dict[str, int], ...]:
    """JSON's number grammar as a table: state -> {character: next state}.

    Only a number cut by the end of a fragment goes through it, a character at a time, so that
    a number split into many fragments is still checked in time linear in its length; a number
    that arrives whole is checked by one regex match.
    """
    digits = "0123456789"
    nonzero = "123456789"

    def to(chars: str, state: int) -> dict[str, int]:
        return dict.fromkeys(chars, state)

    return (
        {"-": 1, "0": 2, **to(nonzero, 3)},  # 0: start
        {"0": 2, **to(nonzero, 3)},  # 1: after the minus sign
        {".": 4, "e": 6, "E": 6},  # 2: a leading zero
        {".": 4, "e": 6, "E": 6, **to(digits, 3)},  # 3: integer digits
        to(digits, 5),  # 4: after the point
        {"e": 6, "E": 6, **to(digits, 5)},  # 5: fraction digits
        {"+": 7, "-": 7, **to(digits, 8)},  # 6: after the exponent's letter
        to(digits, 8),  # 7: after the exponent's sign
        to(digits, 8),  # 8: exponent digits
    )


_NUMBER_STATES = _number_automaton()
_NUMBER_COMPLETE = frozenset({2, 3, 5, 8})


class ArgumentsChange(NamedTuple):
    """One change to the arguments, in the order the text made it.

    `set`: the member at `path` (keys and indexes from the top object) is now `value`: a
    complete number or literal, an empty string about to grow, or a new empty container about
    to be filled (a fresh one, not the reader's own). `append`: `value` is text added to the end
    of the string at `path`.
    """

    kind: Literal["set", "append"]
    path: tuple[str | int, ...]
    value: Any


class PartialArguments:
    """One tool call's arguments, fed fragment by fragment, readable at any moment.

    `feed` each fragment as it arrives; `value()` is the arguments as far as they go; `done`
    says the object has closed, so the call's arguments are complete without waiting for the
    stream's finish. The context (`index`, `call_id`, `name`) is only quoted in errors.
    """

    def __init__(
        self,
        *,
        track_changes: bool = False,
        index: int | None = None,
        call_id: str | None = None,
        name: str | None = None,
    ) -> None:
        self._context: dict[str, Any] = {"index": index, "call_id": call_id, "name": name}
        self._root: dict[str, Any] = {}
        self._stack: list[dict[str, Any] | list[Any]] = []
        self._path: list[str | int] = []  # where each open container but the root sits
        self._changes: list[ArgumentsChange] | None = [] if track_changes else None
        self._string_path: tuple[str | int, ...] = ()  # where the open string sits
        self._mark = 0  # the open string's chunks before it came with earlier fragments
        self._state = _BEFORE
        self._key = ""  # the key whose value comes next, in the innermost open object
        self._is_key = False  # whether the open string is a key
        self._chunks: list[str] = []  # the open string's or number's text so far, not shown yet
        self._text = ""  # the open value string's text as `value()` showed it last
        self._run_list = self._chunks  # the list whose first `_runs` items are joined runs
        self._runs = 0
        self._escape = ""  # an escape cut by the end of a fragment, backslash included
        self._high = 0  # a high surrogate waiting for its low half, else 0
        self._number = 0  # the number automaton's state
        self._shown = False  # whether the number in progress has a slot in its container
        self._hidden: Any = _ABSENT  # what that slot held before, under a repeated key
        self._literal = ""  # the rest of the literal in progress
        self._literal_value: Any = None
        self._offset = 0  # characters read before the current fragment
        self._error: ArgumentsError | None = None

    @property
    def failed(self) -> bool:
        """Whether a fragment broke the rules: `feed` raises again, `value()` stays as it was."""
        return self._error is not None

    @property
    def done(self) -> bool:
        """Whether the arguments object has closed: `value()` is final, the call complete."""
        return self._state == _DONE

    def value(self) -> dict[str, Any]:
        """The arguments as far as they go: live, read-only objects (see the module docstring).

        The same dict is returned on every call; before the first `{` it is empty.
        """
        state = self._state
        if state == _STRING and not self._is_key:
            self._set(self._grown())
        elif state == _NUMBER:
            self._show_number()
        return self._root

    def changes(self) -> list[ArgumentsChange]:
        """What changed since the previous call, in order: the way to follow the arguments
        without a `str` of the whole of a long string.

        Replaying the changes on an empty dict rebuilds `value()`, except for a number in
        progress, which is announced once it ends. Needs `track_changes=True`, so that a reader
        nobody asks for changes does not keep a second copy of the text.
        """
        if self._changes is None:
            raise UsageError("changes() needs PartialArguments(track_changes=True)")
        changes, self._changes = self._changes, []
        return changes

    def feed(self, fragment: str) -> None:
        """Read the next fragment of the arguments text, raising `ArgumentsError` at the first
        character that means the text can never be the arguments' JSON object.

        After an error the same error is raised again: the text is broken, not waiting.
        """
        if type(fragment) is not str:
            raise UsageError(f"a fragment must be a str, got {shown(fragment)}")
        if self._error is not None:
            raise self._error
        chunks = self._chunks
        if (
            self._state == _STRING
            and not self._escape
            and not self._high
            and '"' not in fragment
            and "\\" not in fragment
            # Printable text holds no control character and no surrogate; the pattern is the
            # rule, `isprintable` the quick yes for nearly every fragment.
            and (fragment.isprintable() or _PLAIN.fullmatch(fragment) is not None)
        ):
            # Inside a long string, most fragments: no scanning, and the fragment is the change.
            chunks.append(fragment)
            if self._changes is not None and not self._is_key:
                # The tuple made directly: a NamedTuple's `__new__` is a Python call per fragment.
                change = tuple.__new__(ArgumentsChange, ("append", self._string_path, fragment))
                self._changes.append(change)
        else:
            self._mark = len(chunks)  # value() may have taken the chunks since
            try:
                self._scan(fragment)
            except ArgumentsError as exc:
                self._error = exc
                raise
            if self._changes is not None and self._state == _STRING and not self._is_key:
                self._announce_text()
            chunks = self._chunks
        self._offset += len(fragment)
        # The pieces since the last run become one string, 64 at a time: a `str` for every
        # 4-character fragment of a long string made memory twenty times its text. Runs are
        # never joined again, so each character is copied once. (A new list, or one that
        # `value()` emptied, starts the count again.)
        if chunks is not self._run_list:
            self._run_list = chunks
            self._runs = 0
        runs = self._runs
        if runs > len(chunks):
            runs = len(chunks)
        if len(chunks) - runs >= _RUN:
            chunks[runs:] = ["".join(chunks[runs:])]
            runs += 1
        self._runs = runs

    def feed_parsed(self, value: dict[str, Any], chars: int = 0) -> None:
        """Take the whole arguments at once, already parsed: `value` is the object a `chars`
        characters long text without repeated keys reads as (written from it, as a wire that
        sends arguments decoded has them). `chars` only places the error a fragment fed after
        it raises; leave it out when the text was not written and nothing is fed after.

        The view and its changes are what feeding that text would give, without scanning a
        megabyte in Python to rebuild an object the caller holds: each member is announced
        where it stands in the text, a container as an empty one that fills, a string as set
        empty then appended whole. The view's containers are its own, so changing it changes
        neither `value` nor what was announced.
        """
        if self._state != _BEFORE or self._error is not None or self._offset:
            raise UsageError("feed_parsed() takes the whole arguments, before any fragment")
        self._root = _own(value, self._changes)
        self._state = _DONE
        self._offset = chars

    # -- the scanner --------------------------------------------------------------------------

    def _scan(self, text: str) -> None:
        """Advance the state over `text`; every branch consumes at least one character."""
        end = len(text)
        pos = 0
        state = self._state
        stack = self._stack
        while pos < end:
            if state == _STRING:
                pos = self._string(text, pos)
                state = self._state
                continue
            if state in (_NUMBER, _LITERAL):  # before whitespace, which ends a number
                if state == _NUMBER:
                    pos = self._continue_number(text, pos)
                else:
                    pos = self._continue_literal(text, pos)
                state = self._state
                continue
            char = text[pos]
            if char in _WHITESPACE:
                pos = _SKIP_WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]
                continue
            if state == _AFTER:
                closing = "}" if isinstance(stack[-1], dict) else "]"
                if char == ",":
                    state = _KEY if closing == "}" else _VALUE
                elif char == closing:
                    state = self._close()
                else:
                    self._fail(pos, f"expected ',' or '{closing}'", text)
                pos += 1
            elif state in (_VALUE, _FIRST_VALUE):
                if char == '"':
                    self._open_string(False)
                    state = _STRING
                    pos += 1
                elif char == "{" or char == "[":
                    self._open(char, pos, text)
                    state = _FIRST_KEY if char == "{" else _FIRST_VALUE
                    pos += 1
                elif char == "]" and state == _FIRST_VALUE:
                    state = self._close()
                    pos += 1
                elif char == "-" or "0" <= char <= "9":
                    pos = self._start_number(text, pos)
                    state = self._state
                elif char in _LITERALS:
                    self._literal, self._literal_value = _LITERALS[char]
                    self._state = _LITERAL
                    pos = self._continue_literal(text, pos)
                    state = self._state
                elif char == "N" or char == "I":
                    self._fail(pos, "NaN and Infinity are not JSON (RFC 8259)", text)
                else:
                    self._fail(pos, "expected a value", text)
            elif state in (_FIRST_KEY, _KEY):
                if char == '"':
                    self._open_string(True)
                    state = _STRING
                elif char == "}" and state == _FIRST_KEY:
                    state = self._close()
                else:
                    self._fail(pos, "expected a key (a string in double quotes)", text)
                pos += 1
            elif state == _COLON:
                if char != ":":
                    self._fail(pos, "expected ':' after the key", text)
                state = _VALUE
                pos += 1
            else:  # _BEFORE or _DONE: outside the object
                state = self._outside(state, char, pos, text)
                pos += 1
            self._state = state
        self._state = state

    def _outside(self, state: int, char: str, pos: int, text: str) -> int:
        """The state after `char`, read outside the object: before it, only its opening brace
        may come; once it closed, nothing but whitespace."""
        if state == _DONE:
            self._fail(
                pos, "two JSON values in one arguments buffer (were parallel calls merged?)", text
            )
        if char != "{":
            self._fail(pos, "arguments must be a JSON object, starting with '{'", text)
        self._stack.append(self._root)
        return _FIRST_KEY

    def _fail(self, pos: int, reason: str, text: str) -> NoReturn:
        at = self._offset + pos
        near = text[max(0, pos - 20) : pos + 20]
        raise ArgumentsError(
            f"arguments are not valid JSON ({reason} at character {at}): {near!r}",
            **self._context,
        )

    def _close(self) -> int:
        """Close the innermost container; return the state that follows."""
        self._stack.pop()
        if not self._stack:
            return _DONE
        self._path.pop()
        return _AFTER

    def _set(self, value: Any) -> None:
        """Put `value` in the slot of the value in progress, which its container already has."""
        top = self._stack[-1]
        if isinstance(top, dict):
            top[self._key] = value
        else:
            top[-1] = value

    def _add(self, value: Any) -> str | int:
        """Give the innermost container a new member, under the pending key or at the end;
        return the member's key or index."""
        top = self._stack[-1]
        if isinstance(top, dict):
            top[self._key] = value
            return self._key
        top.append(value)
        return len(top) - 1

    def _announce(self, key: str | int, value: Any) -> None:
        """Record that the innermost container's member `key` is now `value`, if asked to."""
        if self._changes is not None:
            self._changes.append(ArgumentsChange("set", (*self._path, key), value))

    def _announce_text(self) -> None:
        """Record the open string's text that arrived in this fragment, if any."""
        chunks = self._chunks
        if len(chunks) > self._mark:
            text = "".join(chunks[self._mark :])
            self._changes.append(ArgumentsChange("append", self._string_path, text))  # type: ignore[union-attr]

    def _open(self, bracket: str, pos: int, text: str) -> None:
        if len(self._stack) >= MAX_DEPTH:
            self._fail(pos, f"nesting deeper than {MAX_DEPTH} levels", text)
        container: dict[str, Any] | list[Any] = {} if bracket == "{" else []
        key = self._add(container)
        self._announce(key, {} if bracket == "{" else [])
        self._stack.append(container)
        self._path.append(key)

    # -- strings --------------------------------------------------------------------------------

    def _open_string(self, is_key: bool) -> None:
        self._is_key = is_key
        self._chunks = []
        self._text = ""
        self._mark = 0
        if not is_key:
            key = self._add("")  # an open string is shown from its first quote, as empty
            if self._changes is not None:
                self._string_path = (*self._path, key)
                self._changes.append(ArgumentsChange("set", self._string_path, ""))

    def _string(self, text: str, pos: int) -> int:
        """Read string characters from `pos`; return where reading stopped."""
        end = len(text)
        chunks = self._chunks
        if self._escape:
            pos = self._continue_escape(text, pos)
        while pos < end:
            stop = _PLAIN.match(text, pos).end()  # type: ignore[union-attr]
            if stop > pos:
                if self._high:
                    self._lone_surrogate(pos, text)
                chunks.append(text[pos:stop])
                pos = stop
                if pos == end:
                    break
            char = text[pos]
            if char == '"':
                if self._high:
                    self._lone_surrogate(pos, text)
                self._close_string()
                return pos + 1
            if char != "\\":
                if "\ud800" <= char <= "\udfff":
                    self._fail(pos, f"a raw surrogate U+{ord(char):04X} is not Unicode text", text)
                self._fail(pos, f"control character {char!r} must be escaped in a string", text)
            decoded = _SIMPLE_ESCAPES.get(text[pos + 1 : pos + 2])
            if decoded is not None and not self._high:  # the common escapes, without a detour
                chunks.append(decoded)
                pos += 2
                continue
            self._escape = text[pos : pos + 6]
            pos = self._continue_escape(text, pos + len(self._escape))
        return pos

    def _continue_escape(self, text: str, pos: int) -> int:
        """Complete `self._escape` from `text[pos:]` as far as it goes; return the new position.

        `self._escape` holds the escape's characters read so far, backslash first, possibly
        already six of them (the common case: a whole escape within one fragment).
        """
        escape = self._escape
        while len(escape) < (6 if escape[1:2] == "u" else 2) and pos < len(text):
            more = text[pos : pos + (6 if escape[1:2] == "u" else 2) - len(escape)]
            escape += more
            pos += len(more)
        if len(escape) < 2:
            self._escape = escape
            return pos
        kind = escape[1]
        where = pos - len(escape)
        if kind != "u":
            decoded = _SIMPLE_ESCAPES.get(kind)
            if decoded is None:
                self._fail(where, f"invalid escape {escape[:2]!r}", text)
            if self._high:
                self._lone_surrogate(where, text)
            self._chunks.append(decoded)
            self._escape = ""
            return where + 2
        digits = escape[2:]
        if _HEX.fullmatch(digits) is None:
            self._fail(where, f"invalid \\u escape {escape!r}", text)
        if len(digits) < 4:
            self._escape = escape
            return pos
        self._escape = ""
        code = int(digits, 16)
        if self._high:
            if not 0xDC00 <= code <= 0xDFFF:
                self._lone_surrogate(where, text)
            code = 0x10000 + ((self._high - 0xD800) << 10) + (code - 0xDC00)
            self._high = 0
        elif 0xD800 <= code <= 0xDBFF:
            self._high = code
            return pos
        elif 0xDC00 <= code <= 0xDFFF:
            self._fail(where, f"a lone surrogate (U+{code:04X}) is not Unicode text", text)
        self._chunks.append(chr(code))
        return pos

    def _lone_surrogate(self, pos: int, text: str) -> NoReturn:
        self._fail(
            pos, f"a lone surrogate (U+{self._high:04X}) is not Unicode text: no low half", text
        )

    def _close_string(self) -> None:
        if self._is_key:
            chunks = self._chunks
            self._key = chunks[0] if len(chunks) == 1 else "".join(chunks)
            self._state = _COLON
        else:
            if self._changes is not None:
                self._announce_text()
            self._set(self._grown())
            self._text = ""
            self._state = _AFTER
        self._chunks = []

    def _grown(self) -> str:
        """The open value string so far: the one shown last, with what arrived since appended.

        The string's references (ours and the view's) are let go before the `+=`, so that with
        no other one CPython extends it in place rather than copy it (see the module docstring):
        this is what keeps reading the view after every fragment linear.
        """
        chunks = self._chunks
        text = self._text
        if not chunks:
            return text
        arrived = chunks[0] if len(chunks) == 1 else "".join(chunks)
        chunks.clear()
        self._text = ""
        self._set("")
        text += arrived
        self._text = text
        return text

    # -- numbers and literals -----------------------------------------------------------------

    def _start_number(self, text: str, pos: int) -> int:
        stop = _NUMBER_RUN.match(text, pos).end()  # type: ignore[union-attr]
        if stop < len(text):  # the common case: the whole number is in this fragment
            if _JSON_NUMBER.fullmatch(text, pos, stop) is None:
                self._fail(pos, "invalid number", text)
            number = self._convert(text[pos:stop], pos, text)
            self._announce(self._add(number), number)
            self._state = _AFTER
            return stop
        self._chunks = []
        self._number = 0
        self._shown = False
        self._state = _NUMBER
        return self._continue_number(text, pos)

    def _continue_number(self, text: str, pos: int) -> int:
        stop = _NUMBER_RUN.match(text, pos).end()  # type: ignore[union-attr]
        state = self._number
        for offset, char in enumerate(text[pos:stop]):
            following = _NUMBER_STATES[state].get(char)
            if following is None:
                self._fail(pos + offset, "invalid number", text)
            state = following
        self._number = state
        if stop > pos:
            self._chunks.append(text[pos:stop])
        if stop == len(text):
            return stop
        if state not in _NUMBER_COMPLETE:
            self._fail(stop, "invalid number", text)
        number = self._convert("".join(self._chunks), stop, text)
        if self._shown:
            self._set(number)
            top = self._stack[-1]
            self._announce(self._key if isinstance(top, dict) else len(top) - 1, number)
        else:
            self._announce(self._add(number), number)
        self._chunks = []
        self._state = _AFTER
        return stop

    def _convert(self, literal: str, pos: int, text: str) -> int | float:
        """A number's text as `json.loads` reads it, within the library's reading (`_json`)."""
        if "." in literal or "e" in literal or "E" in literal:
            number = float(literal)
            if number == _INFINITY or number == -_INFINITY:
                self._fail(pos, f"the number {literal[:20]} does not fit a double", text)
            return number
        try:
            return int(literal)
        except ValueError as exc:  # past the digits int() converts (sys.set_int_max_str_digits)
            self._fail(pos, str(exc), text)

    def _show_number(self) -> None:
        """Show the number in progress if its text so far is a JSON number, else leave it out.

        A number past a double's range is left out too: feeding refuses it once it ends.
        """
        number: int | float | None = None
        if self._number in _NUMBER_COMPLETE:
            chunks = self._chunks
            if len(chunks) > 1:
                chunks[:] = ["".join(chunks)]
            try:
                number = self._convert(chunks[0], 0, "")
            except ArgumentsError:
                number = None
        top = self._stack[-1]
        if number is not None:
            if self._shown:
                self._set(number)
            else:
                if isinstance(top, dict):
                    self._hidden = top.get(self._key, _ABSENT)
                self._add(number)
                self._shown = True
        elif self._shown:
            # Left out again: a repeated key shows its earlier value, where it was, as the
            # reference does; a new member goes, to come back at the end like json.loads has it.
            if not isinstance(top, dict):
                top.pop()
            elif self._hidden is _ABSENT:
                del top[self._key]
            else:
                top[self._key] = self._hidden
            self._hidden = _ABSENT
            self._shown = False

    def _continue_literal(self, text: str, pos: int) -> int:
        rest = self._literal
        got = text[pos : pos + len(rest)]
        if not rest.startswith(got):
            self._fail(pos, f"invalid literal (expected {rest!r})", text)
        pos += len(got)
        if len(got) < len(rest):
            self._literal = rest[len(got) :]
            return pos
        self._announce(self._add(self._literal_value), self._literal_value)
        self._state = _AFTER
        return pos


def _own(value: dict[str, Any], changes: list[ArgumentsChange] | None) -> dict[str, Any]:
    """A copy of `value`'s containers (strings and numbers shared), announcing each member in
    the order the text written from it holds them, as the scanner would (see `feed_parsed`)."""
    root: dict[str, Any] = {}
    # Each entry: the source's members still to copy, the copy, and the copy's path.
    stack: list[
        tuple[Iterator[tuple[str | int, Any]], dict[str, Any] | list[Any], tuple[str | int, ...]]
    ] = [(iter(value.items()), root, ())]
    while stack:
        members, into, path = stack[-1]
        for key, item in members:
            where = (*path, key)
            kind = type(item)
            if kind is dict or kind is list:
                own: dict[str, Any] | list[Any] = {} if kind is dict else []
                _put(into, key, own)
                if changes is not None:
                    changes.append(ArgumentsChange("set", where, {} if kind is dict else []))
                stack.append((iter(item.items()) if kind is dict else enumerate(item), own, where))
                break
            _put(into, key, item)
            if changes is not None:
                if kind is str:
                    changes.append(ArgumentsChange("set", where, ""))
                    if item:
                        changes.append(ArgumentsChange("append", where, item))
                else:
                    changes.append(ArgumentsChange("set", where, item))
        else:
            stack.pop()
    return root


def _put(into: dict[str, Any] | list[Any], key: str | int, item: Any) -> None:
    if type(into) is dict:
        into[key] = item  # type: ignore[index]
    else:
        into.append(item)  # type: ignore[union-attr]


def not_json(reason: str) -> PartialArguments:
    """A view that holds nothing and reads nothing: for a call whose input is free text (a
    custom tool's), which is never read as JSON. Fed, it stays empty, as a failed view does."""
    view = PartialArguments()
    view._error = ArgumentsError(reason)
    return view
