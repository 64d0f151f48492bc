"""Opening a capture: telling what a file is from its first bytes, and reading its body.

A file is gzip by its magic bytes, a HAR file by its `{"log":` start, a cassette by its
`interactions:`, a transcript of `curl -i` by its status line and of `curl -v` by curl's own
prefixes (`* `, `> `, `< `); anything else is a body. Bad input is a `CaptureError` naming what.
"""

from __future__ import annotations

import gzip
import itertools
import re
import shutil
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from ..recording import scrub
from .capture import GZIP_MAGIC, Capture, CaptureError
from .documents import cassette_capture, har_capture

BLOCK = 1 << 16
#: A HAR file or a cassette is parsed whole; past this size it is refused, not parsed.
MAX_DOCUMENT = 256 << 20
#: How much of the start is read to tell what a file is.
HEAD = 1 << 16
_HAR = re.compile(rb'\A\s*\{\s*"log"\s*:')
_CASSETTE = re.compile(
    rb"\A(?:---[ \t]*\r?\n)?(?:#[^\n]*\n|\s*\n)*(?:version:[^\n]*\n)?interactions:"
)
_STATUS = re.compile(r"HTTP/[0-9.]+ +([0-9]{3})")
#: Lines of `curl -v` that are curl's own, never the body: info, request, response header,
#: and the data markers it prints when the body goes elsewhere.
_CURL_LINE = re.compile(
    rb"\A(?:\* |\*\r?\n|> |>\r?\n|< |<\r?\n|\{ \[|\} \[|  % Total  |  +Dload  Upload)"
)
#: curl's progress meter, which `2>&1` puts among the lines (after a carriage return).
_SIZE = rb"\d+(?:\.\d)?[kMGTP]?"
_TIME = rb"(?:--:--:--|[0-9:]+)"
_PROGRESS = re.compile(
    rb"\r? {0,2}\d{1,3} +"
    + _SIZE
    + rb" +\d{1,3} +"
    + _SIZE
    + rb" +\d{1,3} +"
    + _SIZE
    + rb" +"
    + _SIZE
    + rb" +"
    + _SIZE
    + rb" +"
    + _TIME
    + rb" +"
    + _TIME
    + rb" +"
    + _TIME
    + rb" +"
    + _SIZE
)


def open_capture(name: str, entry: int | None = None, stdin: IO[bytes] | None = None) -> Capture:
    """The capture at path `name` ("-": `stdin`, copied to a temporary file as it is read)."""
    if name == "-":
        if stdin is None:
            raise CaptureError("standard input is not available")
        spool = tempfile.TemporaryFile()  # noqa: SIM115  # kept open: read again later
        shutil.copyfileobj(stdin, spool, BLOCK)
        opener: Callable[[], Any] = _reopen(spool)
    else:
        path = Path(name)
        if not path.is_file():
            raise CaptureError(f"{name}: no such file")

        def opener() -> IO[bytes]:
            return path.open("rb")

    return _classify(name, opener, entry)


def _reopen(spool: IO[bytes]) -> Callable[[], Any]:
    def reopen() -> _Unclosed:
        spool.seek(0)
        return _Unclosed(spool)

    return reopen


class _Unclosed:
    """A file whose `close` only rewinds: standard input's copy is read more than once."""

    def __init__(self, inner: IO[bytes]) -> None:
        self._inner = inner

    def read(self, size: int = -1) -> bytes:
        return self._inner.read(size)

    def close(self) -> None:
        self._inner.seek(0)


def _stream(opener: Callable[[], Any], skip: int = 0) -> Iterator[bytes]:
    """The file's bytes, decompressed if they begin as gzip, after the first `skip` bytes."""
    handle = opener()
    try:
        first = handle.read(2)
        reader: Any = handle
        if first == GZIP_MAGIC:
            handle.close()
            handle = opener()
            reader = gzip.GzipFile(fileobj=handle)
        else:
            yield from _skipped([first], skip)
            skip = max(0, skip - len(first))
        while True:
            try:
                block = reader.read(BLOCK)
            except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
                raise CaptureError(f"the gzip data is truncated or corrupt ({exc})") from None
            if not block:
                return
            if skip:
                block, skip = block[skip:], max(0, skip - len(block))
            if block:
                yield block
    finally:
        handle.close()


def _skipped(blocks: list[bytes], skip: int) -> Iterator[bytes]:
    for block in blocks:
        if len(block) > skip:
            yield block[skip:]
        skip = max(0, skip - len(block))


def _head(opener: Callable[[], Any]) -> tuple[bytes, bool]:
    """The first `HEAD` bytes (decompressed), and whether the file is gzip."""
    handle = opener()
    try:
        compressed = handle.read(2) == GZIP_MAGIC
    finally:
        handle.close()
    head = bytearray()
    for block in _stream(opener):
        head += block
        if len(head) >= HEAD:
            break
    return bytes(head[:HEAD]), compressed


def _classify(name: str, opener: Callable[[], Any], entry: int | None) -> Capture:
    head, compressed = _head(opener)
    if not head.strip():
        raise CaptureError(f"{name}: the file is empty")
    if _HAR.match(head):
        capture = har_capture(name, _document(name, opener), entry)
    elif _CASSETTE.match(head):
        capture = cassette_capture(name, _document(name, opener), entry)
    elif head.startswith(b"HTTP/") or _CURL_LINE.match(head.lstrip(b"\r")):
        capture = _transcript(name, opener, head)  # its body may be gzip: binary
    elif _binary(head):
        raise CaptureError(f"{name}: the file is binary, not a captured HTTP body")
    else:
        capture = Capture(name, "body", lambda: _stream(opener))
    capture.compressed = capture.compressed or compressed
    return capture


def _binary(head: bytes) -> bool:
    """Whether the start is not text: a NUL byte, or many bytes that are not UTF-8 (a few are
    a body's own fault, which the reading reports at its event)."""
    if b"\x00" in head:
        return True
    bad = head.decode("utf-8", "replace").count("\ufffd")
    return bad > max(16, len(head) // 100)


def _document(name: str, opener: Callable[[], Any]) -> bytes:
    data = bytearray()
    for block in _stream(opener):
        data += block
        if len(data) > MAX_DOCUMENT:
            raise CaptureError(f"{name}: larger than {MAX_DOCUMENT >> 20} MiB; cut the body out")
    return bytes(data)


def _transcript(name: str, opener: Callable[[], Any], head: bytes) -> Capture:
    """`curl -i` (a status line and headers, then the body) or `curl -v` (curl's own lines
    prefixed `* `, `> `, `< `, then the body, with curl's lines perhaps among it)."""
    verbose = not head.startswith(b"HTTP/")
    # Split at line feeds only: a progress meter's carriage returns are inside its lines.
    lines = [line + b"\n" for line in head.split(b"\n")]
    status: int | None = None
    headers: list[tuple[str, str]] = []
    method = url = None
    offset = 0
    in_headers = False
    host = None
    for line in lines:
        cleaned = _PROGRESS.sub(b"", line) if verbose else line
        text = cleaned.decode("utf-8", "replace").rstrip("\r\n")
        if verbose:
            if not _curls(line, cleaned):
                break
            offset += len(line)
            if text.startswith("> ") and method is None and " HTTP/" in text:
                method, _, rest = text[2:].partition(" ")
                url = rest.rpartition(" HTTP/")[0]
            if text.lower().startswith("> host:"):
                host = text[7:].strip()
            if not text.startswith("<"):
                continue
            text = text[2:] if text.startswith("< ") else ""
        else:
            offset += len(line)
        found = _STATUS.match(text)
        if found:
            status, headers, in_headers = int(found.group(1)), [], True
        elif in_headers and text.strip():
            key, _, value = text.partition(":")
            headers.append((key.strip(), value.strip()))
        elif in_headers and not verbose and status is not None and status >= 200:
            break  # the blank line after the last block of headers: the body follows
        elif in_headers:
            in_headers = False
    if status is None:
        raise CaptureError(f"{name}: a transcript without an HTTP status line")
    if not 100 <= status <= 599:
        raise CaptureError(f"{name}: the status line says {status}, which is no HTTP status")
    form = "curl -v" if verbose else "curl -i"
    chunks = (
        _curl_body(opener, offset) if verbose else (lambda: _gunzipped(_stream(opener, offset)))
    )
    capture = Capture(name, form, chunks, status, headers, url, method)
    if host and url and url.startswith("/"):
        capture.url = scrub.url(f"https://{host}{url}")
    return capture


def _gunzipped(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """A body that is gzip itself (`Content-Encoding: gzip` printed by `curl -i` without
    `--compressed`) decompressed as it is read; any other body as it is."""
    first = next(chunks, b"")
    while len(first) < 2:
        more = next(chunks, None)
        if more is None:
            break
        first += more
    if not first.startswith(GZIP_MAGIC):
        yield first
        yield from chunks
        return
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        for chunk in itertools.chain([first], chunks):
            yield inflate.decompress(chunk)
        rest = inflate.flush()
    except zlib.error as exc:
        raise CaptureError(f"the gzip body is corrupt ({exc})") from None
    if not inflate.eof:
        raise CaptureError("the gzip body is truncated")
    yield rest


def _curls(line: bytes, cleaned: bytes) -> bool:
    """Whether a line of a `curl -v` transcript is curl's own: a prefixed line, or a progress
    meter's alone."""
    return bool(_CURL_LINE.match(cleaned)) or (bool(line.strip()) and not cleaned.strip())


def _curl_body(opener: Callable[[], Any], offset: int) -> Callable[[], Iterator[bytes]]:
    """The body of a `curl -v` transcript without curl's own lines and progress meter among or
    after it."""

    def chunks() -> Iterator[bytes]:
        held = b""
        for block in _stream(opener, offset):
            held += block
            *whole, held = held.split(b"\n")
            kept = _kept([line + b"\n" for line in whole])
            if kept:
                yield kept
        if held:
            yield _kept([held])

    return chunks


def _kept(lines: list[bytes]) -> bytes:
    """The lines that are the body's, each without the progress meter curl put in it."""
    cleaned = [(line, _PROGRESS.sub(b"", line)) for line in lines]
    return b"".join(clean for line, clean in cleaned if not _curls(line, clean))
