"""JSON decoding of chunk payloads and arguments: one reading of every text, on every backend.

Decoding chunks is the dominant cost of the whole flow, so there are two backends. `stdlib` calls
the C scanner behind `json.loads` directly: the checks `json.loads` wraps around it (type tests,
two regex matches, a method call) cost a fifth of decoding a typical chunk, and we do them only
when the fast call did not consume the whole payload. `orjson`, when the optional `fast` extra is
installed, decodes in about half the time. `auto` picks orjson when it is importable.

The two disagree at the edges (NaN, Infinity, 1e400, integers past 64 bits, lone surrogates,
nesting), and the answer must not depend on what is installed. So the library fixes one reading
(DESIGN.md, "One reading of JSON") and both backends give it: the stdlib scanner runs with hooks
that refuse what orjson refuses and read big integers as orjson does, orjson's output is checked
for what it accepts and we do not (nesting), and whatever orjson refuses is decoded again by the
stdlib path, so that a refused chunk gets the same error and message on both backends.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from ._errors import UsageError, shown

Loads = Callable[[str], Any]
#: Reads the UTF-8 bytes of a long event as `Loads` reads their text, or gives `UNREAD`.
ReadsUtf8 = Callable[[bytes], Any]
#: Writes an arguments object as compact JSON text (see `writer`).
Dumps = Callable[[dict[str, Any]], str]

#: Deepest nesting of arrays and objects read, in a chunk or in arguments. Real chunks nest about
#: seven levels and real arguments a few more; the stdlib's recursive scanner fails somewhere
#: under 1,000 depending on the caller's own stack, and orjson at 1,024.
MAX_DEPTH = 128

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: The escape of a surrogate (`\\ud800` to `\\udfff`), the only way text decoded from UTF-8 gets
#: one. A search for the whole pattern costs a third of searching for `\\u`, which stops at
#: every backslash of text full of escapes (code, quoted prose), and then three more.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_INFINITY = float("inf")
#: What a `ReadsUtf8` gives for bytes it leaves to be made text and read as text.
UNREAD: Any = object()


class Refused(ValueError):
    """Text a decoder may accept that the library does not read (see the module docstring)."""


def _constant(name: str) -> Any:
    raise Refused(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def _float(text: str) -> float:
    value = float(text)
    if value == _INFINITY or value == -_INFINITY:
        raise Refused(f"the number {text[:20]} does not fit a double")
    return value


def _integer(text: str) -> int | float:
    """An integer literal as orjson reads it: exact from -2**63 to 2**64 - 1, else a double."""
    if len(text) < 19:
        return int(text)
    if len(text.lstrip("-")) > 309:  # past 1.8e308, and int() would refuse past 4,300 digits
        raise Refused(f"the number {text[:20]}... ({len(text)} digits) does not fit a double")
    value = int(text)
    if -(2**63) <= value < 2**64:
        return value
    try:
        return float(value)
    except OverflowError:
        raise Refused(f"the number {text[:20]}... does not fit a double") from None


def _checked(text: str, value: Any, surrogates: bool) -> Any:
    """`value` unless it nests too deep or (`surrogates`) holds a lone surrogate.

    Only text that could break a rule is walked: nesting deeper than `MAX_DEPTH` needs as many
    brackets, opened and closed, and a lone surrogate from valid UTF-8 needs a `\\ud` escape.
    Counting the brackets of a long text costs more than walking its value when that is a few
    members (an event carrying a whole call, whose arguments are long strings), so a long
    text's value is walked first, as far as `_MEMBERS_WALKED` members.
    """
    surrogates = surrogates and _SURROGATE_ESCAPE.search(text) is not None
    if surrogates:
        _walk(value, surrogates)
    elif len(text) > 2 * MAX_DEPTH:
        if len(text) > _LONG_TEXT and _walk(value, False, _MEMBERS_WALKED):
            return value
        if text.count("{") + text.count("[") > MAX_DEPTH:
            _walk(value, False)
    return value


#: A text this long is walked before its brackets are counted (see `_checked`).
_LONG_TEXT = 64 * 1024
_MEMBERS_WALKED = 1024


def _walk(value: Any, surrogates: bool, members: int | None = None, numbers: bool = False) -> bool:
    """Raise `Refused` at a container deeper than `MAX_DEPTH`, a string with a lone surrogate
    (`surrogates`) or a number the library reads otherwise (`numbers`: an integer past 64 bits,
    an infinite float); return whether the whole value was walked, which is given up after
    `members` members.

    A loop with its own stack, of one iterator per open container: the value may be deep
    enough to break recursion, and wide enough (an event of 600,000 parts) that a stack of its
    members would cost more than the value itself.
    """
    if type(value) is not dict and type(value) is not list:
        _check_leaf(value, surrogates, numbers)
        return True
    stack = [_members(value, surrogates)]
    while stack:
        for item in stack[-1]:
            if members is not None:
                members -= 1
                if members < 0:
                    return False
            kind = type(item)
            if kind is dict or kind is list:
                if len(stack) >= MAX_DEPTH:
                    raise Refused(f"it nests deeper than {MAX_DEPTH} levels")
                stack.append(_members(item, surrogates))
                break
            if surrogates and kind is str:
                _refuse_surrogate(item)
            elif numbers and (kind is int or kind is float):
                _check_number(item)
        else:
            stack.pop()
    return True


def _check_leaf(value: Any, surrogates: bool, numbers: bool) -> None:
    kind = type(value)
    if surrogates and kind is str:
        _refuse_surrogate(value)
    elif numbers and (kind is int or kind is float):
        _check_number(value)


def _check_number(number: float) -> None:
    """Refuse a number a chunk is not read as: an integer outside -2**63 to 2**64 - 1, which
    the library reads as the nearest double, or an infinite float, which it refuses."""
    if type(number) is int:
        if not -(2**63) <= number < 2**64:
            raise Refused("an integer past 64 bits, read as a double here")
    elif number == _INFINITY or number == -_INFINITY:
        raise Refused("a number that does not fit a double")


def _members(container: Any, surrogates: bool) -> Iterator[Any]:
    """What a container holds: a dict's values, and its keys too when they are checked."""
    if type(container) is list:
        return iter(container)
    if surrogates:
        return itertools.chain(container, container.values())
    return iter(container.values())


def holds_surrogate(text: str) -> bool:
    """Whether `text` holds a surrogate: decoded, a pair is one character, so it is a lone one."""
    return _LONE_SURROGATE.search(text) is not None


def _refuse_surrogate(text: str) -> None:
    found = _LONE_SURROGATE.search(text)
    if found is not None:
        raise Refused(
            f"a string holds a lone surrogate (U+{ord(found.group()):04X}): not Unicode text, "
            "and no UTF-8 encoder will send it on"
        )


# Chunks: integers as orjson reads them. Arguments keep Python's exact integers: they reach a
# Python tool as they were written, and both backends parse them with this same decoder anyway.
_chunk_decoder = json.JSONDecoder(parse_constant=_constant, parse_float=_float, parse_int=_integer)
_arguments_decoder = json.JSONDecoder(parse_constant=_constant, parse_float=_float)
_scan_once = _chunk_decoder.scan_once  # type: ignore[attr-defined]


def _stdlib_loads(text: str) -> Any:
    try:
        try:
            value, end = _scan_once(text, 0)
        except StopIteration:
            # Leading whitespace, or an error worth json's own message.
            value = _chunk_decoder.decode(text)
        else:
            if end != len(text):
                # Trailing whitespace is fine; anything else raises here.
                value = _chunk_decoder.decode(text)
    except RecursionError:
        raise Refused(f"it nests deeper than {MAX_DEPTH} levels") from None
    return _checked(text, value, surrogates=True)


def loads_arguments(text: str) -> Any:
    """Arguments text read by the library's one reading of JSON, with exact integers.

    Raises `json.JSONDecodeError` for text that is not JSON, `Refused` for what the library does
    not read, and `ValueError` for an integer longer than Python converts.
    """
    # Written raw, by a caller feeding strings directly: a body's UTF-8 cannot carry one.
    _refuse_surrogate(text)
    try:
        value = _arguments_decoder.decode(text)
    except RecursionError:
        raise Refused(f"it nests deeper than {MAX_DEPTH} levels") from None
    return _checked(text, value, surrogates=True)


def backend(name: str = "auto") -> Loads:
    """The `loads` function for a backend name: `auto`, `stdlib` or `orjson`."""
    if name not in _BACKENDS:  # before the cache, which would refuse an unhashable name
        raise UsageError(f"unknown json backend {shown(name)}; use 'auto', 'stdlib' or 'orjson'")
    return _backend(name)


_BACKENDS = ("auto", "stdlib", "orjson")


@functools.cache
def _backend(name: str) -> Loads:
    if name == "stdlib":
        return _stdlib_loads
    try:
        import orjson
    except ImportError:
        if name == "orjson":
            needs = "pip install 'toolcall-streams[fast]'"
            raise UsageError(f"json backend 'orjson' needs: {needs}") from None
        return _stdlib_loads
    return _orjson_loads(orjson.loads)


def _stdlib_dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@functools.cache
def writer(name: str = "auto") -> Dumps:
    """The compact JSON writer paired with backend `name` (already checked by `backend`).

    Wires that send a call's arguments as an object (Gemini, Ollama) get them written as text
    once, the text a call carries. Both writers give the same text, that of stdlib `json.dumps`
    with `ensure_ascii=False` and no spaces, so the text does not depend on what is installed.
    orjson writes three to six times faster and agrees on everything an object decoded here
    can hold (`_writes_like_stdlib` checks it once), except floats whose exponent is -5 to -9:
    it writes `0.00001` and `1e-6` where Python's repr gives `1e-05` and `1e-06`. And orjson
    sets aside about fifteen times the UTF-8 size of a long string it writes, where the stdlib
    needs its text once more. So an object that may hold such a float, or holds a string
    longer than `_LONG_TEXT` (`_for_the_stdlib`), is written by the stdlib: a merely slower
    path, as for reading (`_orjson_loads`).
    """
    if name == "stdlib":
        return _stdlib_dumps
    try:
        import orjson
    except ImportError:
        return _stdlib_dumps
    if not _writes_like_stdlib(orjson.dumps):
        return _stdlib_dumps
    return _orjson_dumps(orjson.dumps)


def _orjson_dumps(orjson_dumps: Callable[[Any], bytes]) -> Dumps:
    def dumps(value: dict[str, Any]) -> str:
        looked = _for_the_stdlib(value)
        if looked:
            return _stdlib_dumps(value)
        try:
            written = orjson_dumps(value)
        except TypeError:  # orjson.JSONEncodeError: the stdlib gives its own error, or the text
            return _stdlib_dumps(value)
        if looked is None and _may_hold_a_small_float(written):
            return _stdlib_dumps(value)
        return written.decode()

    return dumps


#: Members of an arguments object looked at before it is written.
_MEMBERS_LOOKED_AT = 4096


def _for_the_stdlib(value: Any) -> bool | None:
    """Whether `value` is for the stdlib's writer: it holds a float with exponent -5 to -9,
    which orjson writes otherwise (`0.00001`, `1e-6`), or a string longer than `_LONG_TEXT`;
    None when it has more than `_MEMBERS_LOOKED_AT` members, not all looked at.

    The value is looked at rather than the text searched: arguments written whole are most
    often a few members, some of them long strings, and their text holds `e-` all the time
    (`re-read`, `one-time`), so searching the text found a float in nearly every call.
    """
    stack = [value]
    looked_at = 0
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is str:
            if len(item) > _LONG_TEXT:
                return True
        elif kind is float and -1e-4 < item < 1e-4 and item != 0:
            return True
        looked_at += 1
        if looked_at > _MEMBERS_LOOKED_AT:
            return None
    return False


def _may_hold_a_small_float(written: bytes) -> bool:
    """Whether text orjson wrote may hold a float with exponent -5 to -9, searched with the
    cheap searches (a lone `-` is a `memchr`); what they find is written again, never
    different."""
    return (b"-" in written and b"e-" in written) or b".0000" in written


@functools.cache
def _writes_like_stdlib(orjson_dumps: Callable[[Any], bytes]) -> bool:
    """Whether this orjson writes every probe as the stdlib does, or as `_orjson_dumps` then
    writes again: a float of every decade and the edges of doubles and 64-bit integers, and a
    string of every character JSON escapes or might. Checked once, so another orjson release
    that writes otherwise costs speed, never a different text."""
    probes: list[Any] = [
        0.0,
        -0.0,
        5e-324,
        2.2250738585072014e-308,
        1.7976931348623157e308,
        9007199254740993,
        -(2**63),
        2**64 - 1,
        '\x00\x1f\x7f\b\f\n\r\t"\\/\u2028\u2029\ufeff\U0001f9ea\u00e9',
    ]
    for exponent in range(-324, 309):
        for mantissa in (-1.0, 1234567.891):
            number = mantissa * 10.0**exponent
            if abs(number) < _INFINITY:
                probes.append(number)
    for probe in probes:
        value = {"k": [probe]}
        written = orjson_dumps(value)
        if written.decode() != _stdlib_dumps(value) and not _for_the_stdlib(value):
            return False
    return True


def _orjson_loads(orjson_loads: Loads) -> Loads:
    """orjson's `loads` giving the library's reading (orjson is imported only when asked for).

    A text longer than `_LONG_TEXT` is read by the stdlib path instead: orjson's parser sets
    aside memory in proportion to its input, about seventeen times the UTF-8 size of a
    megabyte event carrying a whole call (Responses' `.done`, a Gemini or Ollama call), where
    the stdlib's scanner holds little beyond the value it makes, in about the same time. Both
    give the one reading, so which one reads a text changes nothing but the cost.
    """

    def loads(text: str) -> Any:
        if len(text) > _LONG_TEXT:
            return _stdlib_loads(text)
        try:
            value = orjson_loads(text)
        except ValueError:
            # Refused or not JSON: the stdlib path gives the error, with the same message as on
            # the stdlib backend (or the reading of a lone surrogate, which it then refuses).
            return _stdlib_loads(text)
        return _checked(text, value, surrogates=False)

    return loads


@functools.cache
def utf8_reader(name: str = "auto") -> ReadsUtf8 | None:
    """The reading of a long event's UTF-8 bytes as they came, on the `auto` backend with
    jiter installed; None otherwise, and every event is made text and read as text.

    Past `_LONG_TEXT` characters an event is read by the stdlib's scanner (`_orjson_loads`),
    and making its bytes text first costs half as much again as the scan: a whole Gemini or
    Ollama call of a megabyte took 0.45 ms to decode and 1.0 ms to scan. jiter reads the
    bytes in about the time of the scan alone, and holds little beyond the value it makes
    (peak resident memory, measured: the value; the text path's peak is twice that). It
    refuses lone surrogates, `NaN`, `Infinity` and bytes that are not UTF-8 as the library
    does; what it reads otherwise (an integer past 64 bits, a float past a double's range,
    nesting past `MAX_DEPTH`) is found by walking the value, and an object giving a key twice
    is refused, since the value it keeps hides the first. Whatever it refuses or reads
    otherwise is given back `UNREAD`, to be made text and read as before, so every error,
    its message and its byte offset are those of the text path. A jiter that reads any probe
    otherwise (`_reads_like_the_library`) is not used: another release costs speed, never a
    different value.
    """
    if name != "auto":
        return None
    try:
        import jiter
    except ImportError:
        return None
    # A key given twice keeps its last value, and the first is never walked: `{"a":1e400,"a":1}`
    # would pass where the text path refuses the number, so such an object is given back.
    reads = _jiter_reads(
        functools.partial(
            jiter.from_json, allow_inf_nan=False, cache_mode="keys", catch_duplicate_keys=True
        )
    )
    try:
        return reads if _reads_like_the_library(reads) else None
    except TypeError:  # a release without these options
        return None


def _jiter_reads(from_json: Callable[[bytes], Any]) -> ReadsUtf8:
    def reads(data: bytes) -> Any:
        try:
            value = from_json(data)
            _walk(value, False, numbers=True)
        except ValueError:  # jiter's refusal, or `Refused` by the walk
            return UNREAD
        return value

    return reads


#: Texts on which a `ReadsUtf8` must give the value the text path gives, or `UNREAD`: the
#: edges where JSON decoders differ (see `_reads_like_the_library`).
_PROBES: tuple[bytes, ...] = (
    b'["\\ud800"]',
    b'["\\udfff"]',
    b'{"\\ud800":1}',
    b'["\\ud800\\ud800"]',
    b'["\\ud800\\u0041"]',
    b'["\\ud83d\\ude00", "\\uDBFF\\uDFFF"]',
    b"[NaN]",
    b"[Infinity]",
    b"[-Infinity]",
    b"[1e400]",
    b'{"":1e400,"":[]}',
    b'{"a":123456789012345678901234567890,"a":1}',
    b"[-1e400]",
    b"[2e308]",
    b"[1e-400]",
    b"[5e-324]",
    b"[1.7976931348623157e308]",
    b"[0.1, 1E5, 1.5e-7, 123456789012345678901234567890.5]",
    b"[-0, -0.0, 0, 0.0]",
    b"[18446744073709551615, -9223372036854775808]",
    b"[18446744073709551616]",
    b"[-9223372036854775809]",
    b"[" + b"9" * 400 + b"]",
    b'{"a":1,"b":2,"a":3}',
    b'["\\u0000\\n\\"\\\\\\/\\b\\f\\r\\t\\u00e9"]',
    b'["\t"]',
    b'["\x7f"]',
    b'["\\x"]',
    b"[1,]",
    b"[01]",
    b"[1.]",
    b"\xef\xbb\xbf[1]",
    b"\x0c[1]",
    b"[1]\x0c",
    b"[1] x",
    b"",
    b' \t\r\n{"a":[true,false,null]} \n',
    b'["\xff"]',
    b'["\xc0\xaf"]',
    b'["\xed\xa0\x80"]',
    b'["\xf4\x90\x80\x80"]',
    b'["\xe4\xb8"]',
    b'["\xe4\xb8\x8a\xf0\x9f\xa7\xaa"]',
    b"[" * MAX_DEPTH + b"]" * MAX_DEPTH,
    b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1),
)


@functools.cache
def _reads_like_the_library(reads: ReadsUtf8) -> bool:
    """Whether `reads` gives every probe the text path's value or leaves it `UNREAD`: never a
    value the text path refuses or reads otherwise (checked once per process)."""
    for probe in _PROBES:
        value = reads(probe)
        if value is UNREAD:
            continue
        try:
            wanted = _stdlib_loads(probe.decode())
        except ValueError:  # not UTF-8, not JSON, or refused
            return False
        if repr(value) != repr(wanted):
            return False
    return True
