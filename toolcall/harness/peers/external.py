"""The implementation protocol: any program, in any language, checked like the in-process peers.

The harness starts the program once and talks to it in JSON lines over its standard input and
output, as Bowtie talks to JSON Schema validators (the messages are defined, one `$defs` entry
each, in `toolcall/schemas/protocol.schema.json`, and the harness validates every message it
sends and receives against it). Version 3:

    -> {"cmd": "start", "protocol": 3}
    <- {"protocol": 3, "implementation": {"name": "naive", "version": "0.3", "language": "python"},
        "wires": ["chat", "responses", "anthropic", "gemini", "ollama"]}
    -> {"cmd": "assemble", "seq": 1, "case": "anthropic/anthropic/...", "wire": "anthropic",
        "request": {...},
        "body_base64": "ZXZlbnQ6IG1lc3NhZ2Vfc3RhcnQK...", "events": [{...}, ...]}
    <- {"seq": 1, "tool_calls": [{"id": "...", "type": "function",
                                  "function": {"name": "...", "arguments": "<JSON text>"}}]}
    ...
    -> {"cmd": "stop"}

Every stream of a wire the program names goes to it with its bytes as the client received them
(`body_base64`) and their decoded events (`events`, for a program that does not parse); on chat,
`chunks` holds the same list under its old name. Gemini's JSON-array bodies (its answer without
`?alt=sse`) go only to a program that names that framing (`"framings": ["json-array"]`), since
an SSE reader given one would be judged on a body its users never send it. A program that says
`"http_client": true` is an
SDK under test: each `assemble` also says where the stream is served (`served`: a base URL and
headers, `serving`), and it fetches the stream from there. An answer may carry `error` (the
implementation judged the stream bad: a cut-off call, say) with or without calls. `case` names
the case for the program's own log (sent when the stream has one), and a handshake may say in
`glue` what the program adds around the library it checks; both came to version 3 as optional
fields, which a version-3 program may ignore (docs/PROTOCOL.md says when the number changes).

A program that answers the handshake with version 2 is spoken to in version 2, which carries chat
chunks only: it gets the chat streams, and its name in the reports says so once. Any other version
is refused at the handshake, with both named. One long-lived process per implementation keeps a
run of a hundred streams from paying a hundred interpreter starts. A late answer, a wrong `seq`,
a message the schema rejects, or a program that exits is a crash, reported with its standard
error from the first line of its crash report (a Go panic, a Python traceback, an uncaught Node
error) on, bounded, or else the last line it wrote there; the next stream starts it afresh.
Programs are named on the command line (`toolcall matrix --external NAME=COMMAND`) or in
`TOOLCALL_EXTERNAL`, one `NAME=COMMAND` per line; COMMAND is split like a shell would split it,
but no shell runs it.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..reading.wires import UnreadableBody
from ..recording import scrub
from ..suite.profiles import format_schema
from . import CHAT, Assembled, Call, Stream, first_line
from .serving import serving

ENVIRONMENT_VARIABLE = "TOOLCALL_EXTERNAL"
DEFAULT_TIMEOUT = 10.0
PROTOCOL = 3
#: The older version still spoken to a program that announces it: chat chunks only.
CHAT_ONLY_PROTOCOL = 2
_SCHEMA = format_schema("protocol.schema.json")

#: The longest line a program may write. An answer holds the calls' arguments as JSON text, and
#: the largest stream of the suite (DeepSeek's `long_arguments`) carries about 855 KB of them; a
#: line beyond this is a program gone wrong, stopped before it takes the harness's memory.
MAX_LINE = 32 * 1024 * 1024
#: The longest line the harness sends a program, its newline included: four times the largest
#: `assemble` of the suite (DeepSeek's `long_arguments`, 2.8 MB), and `tests/test_matrix_docs.py`
#: holds every message of the suite under it, so a program that sizes its line buffer for this
#: reads every stream (docs/PROTOCOL.md).
MAX_MESSAGE = 8 * 1024 * 1024
#: How many lines, and how many bytes, a program may write ahead of the harness reading them.
#: The protocol has one line per message, so more is a program flooding its output, stopped
#: before it fills memory: at most `MAX_UNREAD_BYTES` and one line wait, not 16 long lines.
MAX_UNREAD = 16
MAX_UNREAD_BYTES = MAX_LINE
#: How much of a program's standard error is kept: its end, where the reason for a crash is.
STDERR_TAIL = 16 * 1024
#: How much of a crash report (a Go panic, a Python traceback, an uncaught Node error) a crash
#: verdict keeps, from the report's first line on.
CRASH_HEAD = 2 * 1024
#: The longest line a careless line reader takes (Go's `bufio.Scanner` by default): a program
#: that exits without a word after a longer message is told that this is the likely reason.
LINE_READER_LIMIT = 64 * 1024
#: How long a program that closed its output gets to exit before it is killed.
EXIT_GRACE = 1.0
_READ_SIZE = 64 * 1024


class Crashed(Exception):
    """The program broke the protocol; the message is the one-line reason shown in the matrix."""


class TimedOut(Crashed):
    """The program did not take a message or answer one within the timeout."""


class StartFailed(Crashed):
    """The program could not be started, or its handshake failed: it has no column to fill."""


class SpecError(ValueError):
    """A `NAME=COMMAND` entry that cannot be used."""


def escaped(text: str) -> str:
    """`text` with lone surrogates written as `\\udxxx`, so that it can be printed and saved as
    UTF-8: a program's name or message may hold one (JSON allows `"\\ud800"`, and a command
    line's undecodable bytes arrive as surrogates), and must not cost the report."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class External:
    """One external program, started once and fed every stream in turn.

    Everything that touches the program is bounded: a message is written on a thread the
    deadline can give up on (a program that stops reading cannot block the run, whatever the
    size of the message), lines are read in pieces up to `MAX_LINE` and at most `MAX_UNREAD` ahead
    of the harness, standard error is kept as
    its last `STDERR_TAIL` bytes, and a program that closes its output but keeps running is
    killed after `EXIT_GRACE`. Whatever of the program's own text reaches a message is masked
    like the recorder's messages (`scrub.printable`) with the `keys` given.
    """

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        cwd: Path | None = None,
        keys: Iterable[str] = (),
    ) -> None:
        self.name = escaped(name)
        self.command = list(command)
        self.timeout = timeout
        self.cwd = cwd
        self.keys = list(keys)
        self._process: subprocess.Popen[bytes] | None = None
        self._lines = _Unread()
        self._stderr = _Tail(STDERR_TAIL)
        self._stderr_reader: threading.Thread | None = None
        self._seq = 0
        self._identity = ""
        self._protocol = PROTOCOL
        self._wires: tuple[str, ...] = ()
        self._http_client = False
        self._framings: tuple[str, ...] = ()
        self._glue = ""
        self._sent = 0  # the size of the last message written, for a program that then exits

    @property
    def version(self) -> str:
        """Who the program says it is (its handshake), or why it could not say."""
        try:
            self.start()
        except Crashed as exc:
            return f"external: {self._shown(shlex.join(self.command))} (no handshake: {exc})"
        return self._identity

    @property
    def wires(self) -> tuple[str, ...]:
        """The wires the program said it reads at its first handshake; none if it cannot start.
        Known once said: a program restarted after a crash is not asked again here."""
        if not self._identity:
            try:
                self.start()
            except Crashed:
                return ()
        return self._wires

    @property
    def framings(self) -> tuple[str, ...]:
        """The framings besides its wires' usual ones that the program said it reads (Gemini's
        JSON array); asked like `wires`, at the first handshake."""
        if not self._identity:
            try:
                self.start()
            except Crashed:
                return ()
        return self._framings

    @property
    def glue(self) -> str:
        """What the program said it adds around the library it checks (its handshake's `glue`:
        "checks finish_reason length itself"), or "": the column then judges the library and
        that code together, and the reports say so. Asked like `wires`."""
        if not self._identity:
            try:
                self.start()
            except Crashed:
                return ""
        return self._glue

    def start(self) -> None:
        """Start the program and check its handshake, unless it is running already.

        Raises `StartFailed` (with the reason) and leaves no process behind when either fails.
        """
        if self._process is not None and self._process.poll() is None:
            return
        self._kill()
        try:
            process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                start_new_session=os.name == "posix",  # killed as a group: `go run`, `npx`...
            )
        except OSError as exc:
            reason = self._shown(f"cannot start {self.command[0]!r}: {exc.strerror or exc}")
            raise StartFailed(reason) from None
        self._process = process
        self._lines = _Unread()
        self._stderr = _Tail(STDERR_TAIL)
        assert process.stdout is not None and process.stderr is not None
        _daemon(_read_lines, process.stdout, self._lines)
        self._stderr_reader = _daemon(_read_tail, process.stderr, self._stderr)
        deadline = time.monotonic() + self.timeout
        try:
            self._send({"cmd": "start", "protocol": PROTOCOL}, deadline)
            started = self._receive("started", deadline)
        except Crashed as exc:
            self._kill()
            raise StartFailed(str(exc)) from None
        spoken = started["protocol"]
        if spoken not in (PROTOCOL, CHAT_ONLY_PROTOCOL):
            self._kill()
            raise StartFailed(
                f"speaks protocol {spoken}, the harness speaks {PROTOCOL} (and "
                f"{CHAT_ONLY_PROTOCOL}, chat only; see toolcall/schemas/protocol.schema.json)"
            )
        self._protocol = spoken
        self._wires = tuple(started.get("wires", [CHAT])) if spoken == PROTOCOL else (CHAT,)
        self._http_client = started.get("http_client", False) and spoken == PROTOCOL
        # An HTTP client asks Gemini for `alt=sse`, as the SDKs do: it is never sent an array.
        reads_framings = spoken == PROTOCOL and not self._http_client
        self._framings = tuple(started.get("framings", [])) if reads_framings else ()
        self._glue = escaped(started.get("glue", "")) if spoken == PROTOCOL else ""
        who = started["implementation"]
        identity = f"{who['name']} {who['version']} ({who['language']})"
        if spoken == CHAT_ONLY_PROTOCOL:
            identity += f", protocol {spoken}: chat streams only"
        self._identity = escaped(identity)

    def assemble(self, stream: Stream) -> Assembled:
        self.start()
        if stream.wire not in self._wires:
            raise Crashed(f"was handed a {stream.wire} stream; it reads {list(self._wires)}")
        self._seq += 1
        deadline = time.monotonic() + self.timeout
        message = assemble_message(stream, self._seq, self._protocol)
        if self._protocol == CHAT_ONLY_PROTOCOL:
            self._send(message, deadline, "assemble_v2")
            answer = self._receive("answer", deadline)
        elif self._http_client:
            with serving(stream) as served:
                message["served"] = {"base_url": served.base_url, "headers": dict(served.headers)}
                self._send(message, deadline, "assemble")
                answer = self._receive("answer", deadline)
        else:
            self._send(message, deadline, "assemble")
            answer = self._receive("answer", deadline)
        if answer["seq"] != self._seq:
            self._kill()
            raise Crashed(f"answered seq {answer['seq']} to seq {self._seq}")
        answer.pop("seq")
        assembled = read_document(answer)
        if assembled.error is None:
            return assembled
        # The program's own words go into the reports: masked and cut like its standard error.
        return replace(assembled, error=self._shown(assembled.error))

    def close(self) -> None:
        """Say stop, and make sure the program is gone."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None and process.stdin is not None:
            grace = min(self.timeout, EXIT_GRACE)
            if _write_within(process.stdin, b'{"cmd": "stop"}\n', grace) is None:
                _quietly_close(process.stdin)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=grace)
        _end(process)

    # -- the pipe ------------------------------------------------------------------------

    def _send(self, message: Mapping[str, Any], deadline: float, kind: str = "") -> None:
        _check(message, "harness sent", kind or str(message["cmd"]))
        process = self._process
        assert process is not None and process.stdin is not None
        data = encoded(message)
        self._sent = len(data)
        outcome = _write_within(process.stdin, data, deadline - time.monotonic())
        if isinstance(outcome, TimeoutError):
            self._kill()
            raise TimedOut(
                f"timed out after {self.timeout:g} s (it stopped reading its input)"
            ) from None
        if outcome is not None:
            raise self._died()

    def _receive(self, kind: str, deadline: float) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self._kill()
            raise TimedOut(f"timed out after {self.timeout:g} s") from None
        if isinstance(line, Crashed):
            self._kill()
            raise line
        if not line:
            raise self._died()
        try:
            message = json.loads(line)
            _check(message, "program sent", kind)
        except RecursionError:
            self._kill()
            raise Crashed(f"sent a {kind!r} message nested too deep to read") from None
        except ValueError:
            self._kill()
            shown = first_line(self._shown(line.decode("utf-8", "replace")), 60)
            raise Crashed(f"sent a line that is not JSON: {shown!r}") from None
        except Crashed as exc:
            # The schema's message quotes the program's value: masked and cut like its stderr.
            self._kill()
            raise Crashed(self._shown(str(exc))) from None
        assert isinstance(message, dict)
        return message

    def _died(self) -> Crashed:
        """The program closed its output: it exited, or it is killed after `EXIT_GRACE`."""
        process, self._process = self._process, None
        if process is None:
            return Crashed("the program is gone")
        try:
            status = f"exit status {process.wait(timeout=min(self.timeout, EXIT_GRACE))}"
        except subprocess.TimeoutExpired:
            status = "closed its standard output but kept running (killed)"
        _end(process)
        if self._stderr_reader is not None:
            self._stderr_reader.join(EXIT_GRACE)  # the last words, written just before exiting
        said = self._shown(self._stderr.crash(), CRASH_HEAD + 400)
        if not said and self._sent > LINE_READER_LIMIT:
            said = (
                f"it was sent a line of {self._sent:,} bytes; a line reader that stops at "
                f"{LINE_READER_LIMIT // 1024} KiB (Go's bufio.Scanner) ends there "
                "(docs/PROTOCOL.md)"
            )
        return Crashed(status + (f": {said}" if said else ""))

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            _end(process)

    def _shown(self, text: str, limit: int = scrub.DETAIL_LENGTH) -> str:
        """A program's own text fit for a message or a report: keys and credentials masked, and
        cut to `limit` characters."""
        return escaped(scrub.printable(text, self.keys, limit))


class _Tail:
    """What a crash message shows of standard error: its last `size` bytes, and the first
    `CRASH_HEAD` bytes from where a crash report began (`crash_start`), wherever that was.

    A Go panic's goroutine dump can run past the tail and push out its own first line, the one
    that says what went wrong (`panic: assignment to entry in nil map`); so that line is caught
    as it goes by, and kept however much follows it."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data = bytearray()
        self._pending = bytearray()  # the line being written, at most `size` bytes
        self._heads: dict[int, bytearray] = {}  # by strength: from its first marker line on
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    def add(self, data: bytes) -> None:
        with self._lock:
            self._data += data[-self.size :]
            del self._data[: max(0, len(self._data) - self.size)]
            self._pending += data
            *lines, rest = self._pending.split(b"\n")
            self._pending = bytearray(rest[-self.size :])
            for line in lines:
                self._watch(bytes(line[: self.size]))

    def _watch(self, line: bytes) -> None:
        """Keep `line` in every crash report open, and open one if the line begins one."""
        for head in self._heads.values():
            if len(head) < CRASH_HEAD:
                head += line[: CRASH_HEAD - len(head)] + b"\n"
        strength = crash_start(line.decode("utf-8", "replace"))
        if strength and strength not in self._heads:
            self._heads[strength] = bytearray(line[:CRASH_HEAD] + b"\n")

    def last_line(self) -> str:
        with self._lock:
            text = self._data.decode("utf-8", "replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def crash(self) -> str:
        """The crash report on one line (` | ` between its lines), from its first line on and
        bounded, with the last line written when the bound cut it off (a Python traceback ends
        with the exception); or the last line written when no report began."""
        last = self.last_line()
        with self._lock:
            found = self._heads.get(max(self._heads, default=0))
            if found is None or not found.strip():
                return first_line(last)
            text = found.decode("utf-8", "replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if len(text) >= CRASH_HEAD and last and last not in lines:
            lines += ["...", first_line(last, 300)]
        return " | ".join(lines)


#: A line that begins a crash report, and how surely: a Go panic or fatal error and a Python
#: traceback (2) win over an error line as Node prints an uncaught one (1), which a program's
#: own log may also hold.
_CRASH_STARTS = (
    (2, re.compile(r"^(panic: |fatal error: |Fatal Python error: |Traceback \(most recent call)")),
    # Node: `TypeError: ...`, `Error [ERR_X]: ...`, `[UnhandledPromiseRejection: ...`
    (1, re.compile(r"^\[?(Uncaught )?[A-Z]?[A-Za-z]*(Error|Exception|Rejection)( \[\w+\])?: ")),
)


def crash_start(line: str) -> int:
    """How surely `line` begins a crash report (0: it does not)."""
    for strength, pattern in _CRASH_STARTS:
        if pattern.match(line):
            return strength
    return 0


def _daemon(target: Any, *args: Any) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


class _Unread:
    """The lines a program wrote that the harness has not read yet, counted in lines and bytes."""

    def __init__(self) -> None:
        self._queue: queue.Queue[bytes | Crashed] = queue.Queue()
        self._bytes = 0
        self._lock = threading.Lock()

    def put(self, item: bytes | Crashed) -> None:
        with self._lock:
            self._bytes += len(item) if isinstance(item, bytes) else 0
        self._queue.put(item)

    def get(self, timeout: float) -> bytes | Crashed:
        """The next line; `queue.Empty` when none came within `timeout` seconds."""
        item = self._queue.get(timeout=timeout)
        with self._lock:
            self._bytes -= len(item) if isinstance(item, bytes) else 0
        return item

    def qsize(self) -> int:
        return self._queue.qsize()

    @property
    def waiting_bytes(self) -> int:
        return self._bytes

    def too_many(self) -> str | None:
        """What is over the bounds, if anything."""
        if self._queue.qsize() > MAX_UNREAD:
            return f"wrote more than {MAX_UNREAD} lines nobody asked for"
        if self._bytes > MAX_UNREAD_BYTES:
            return f"wrote more than {MAX_UNREAD_BYTES:,} bytes nobody asked for"
        return None


def assemble_message(stream: Stream, seq: int, protocol: int = PROTOCOL) -> dict[str, Any]:
    """The `assemble` message a program speaking `protocol` is sent for `stream` (without the
    `served` a program that fetches over HTTP is also told: where the stream is served then);
    what docs/PROTOCOL.md measures the size of."""
    if protocol == CHAT_ONLY_PROTOCOL:
        return {"cmd": "assemble", "seq": seq, "request": stream.request, "chunks": stream.chunks}
    message: dict[str, Any] = {"cmd": "assemble", "seq": seq}
    if stream.case:  # a stream handed over outside a run of cases has no id to give
        message["case"] = stream.case
    message.update(
        wire=stream.wire,
        request=stream.request,
        body_base64=base64.b64encode(stream.body).decode("ascii"),
        events=_events_or_none(stream),
    )
    if stream.wire == CHAT and message["events"] is not None:
        message["chunks"] = message["events"]
    return message


def encoded(message: Mapping[str, Any]) -> bytes:
    """One message as the line written to the program: UTF-8 JSON and a newline."""
    return json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"


def _events_or_none(stream: Stream) -> list[dict[str, Any]] | None:
    """The stream's decoded events, or None for a body that does not decode (the program then
    has its bytes only, as a client would)."""
    try:
        return stream.events
    except UnreadableBody:
        return None


def _read_lines(stream: IO[bytes], lines: _Unread) -> None:
    """Hand over each line of a pipe (an empty one marks its end), so a silent program is caught
    by a timeout instead of blocking the run. A line over `MAX_LINE`, or lines ahead of the
    reader past `MAX_UNREAD` or `MAX_UNREAD_BYTES`, are handed over as the `Crashed` they are,
    and reading stops: an endless line or a flood cannot fill the harness's memory."""
    pending = bytearray()
    try:
        while chunk := stream.read1(_READ_SIZE):  # type: ignore[attr-defined]
            if b"\n" in chunk:  # only a new piece is searched: a long line is not re-read
                first, *rest = chunk.split(b"\n")
                lines.put(bytes(pending + first) + b"\n")
                for line in rest[:-1]:
                    lines.put(line + b"\n")
                pending = bytearray(rest[-1])
            else:
                pending += chunk
            if len(pending) > MAX_LINE:
                lines.put(Crashed(f"sent a line longer than {MAX_LINE:,} bytes"))
                return
            flood = lines.too_many()
            if flood is not None:
                lines.put(Crashed(flood))
                return
    except (OSError, ValueError):
        pass
    if pending:
        lines.put(bytes(pending))
    lines.put(b"")


def _read_tail(stream: IO[bytes], tail: _Tail) -> None:
    try:
        while chunk := stream.read1(_READ_SIZE):  # type: ignore[attr-defined]
            tail.add(chunk)
    except (OSError, ValueError):
        pass


def _write_within(stream: IO[bytes], data: bytes, seconds: float) -> BaseException | None:
    """Write and flush on a thread, waiting at most `seconds`: `None` when written, the
    `OSError` when the pipe broke, `TimeoutError` when the reader did not take it in time (the
    caller then kills the program, which ends the write)."""
    failure: list[BaseException] = []

    def write() -> None:
        try:
            stream.write(data)
            stream.flush()
        except (OSError, ValueError) as exc:
            failure.append(exc)

    writer = _daemon(write)
    writer.join(max(0.0, seconds))
    if writer.is_alive():
        return TimeoutError()
    return failure[0] if failure else None


def _quietly_close(stream: IO[bytes]) -> None:
    with contextlib.suppress(OSError, ValueError):
        stream.close()


def _end(process: subprocess.Popen[bytes]) -> None:
    """Kill the program if it still runs, with whatever it started in its session (the program
    a `go run` or an `npx` starts holds the pipes too), and reap it."""
    if process.poll() is None:
        try:
            if os.name == "posix":
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
        except ProcessLookupError:
            pass
    process.wait()


def _check(message: Any, who: str, kind: str) -> None:
    """Validate one message against its `$defs` entry; a bad one is a crash naming the path."""
    schema = {"$ref": f"#/$defs/{kind}", "$defs": _SCHEMA["$defs"]}
    error = best_match(Draft202012Validator(schema).iter_errors(message))
    if error is not None:
        where = "".join(f"[{p!r}]" for p in error.absolute_path) or "the message"
        raise Crashed(f"{who} a bad {kind!r} message: {where}: {error.message}")


def read_document(document: Any) -> Assembled:
    """The protocol's output document as an `Assembled`, or `Crashed` naming what is wrong.

    A document may carry both `error` and `tool_calls`: a client that reports a bad stream and
    still hands over calls (as langchain and the AI SDK do) is judged on both.
    """
    if not isinstance(document, dict):
        raise Crashed("the output document is not a JSON object")
    error = escaped(str(document["error"])) if document.get("error") is not None else None
    calls = document.get("tool_calls", [] if error is not None else None)
    if not isinstance(calls, list):
        raise Crashed('the output document has neither "tool_calls" (a list) nor "error"')
    out = []
    for position, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            raise Crashed(f"tool_calls[{position}] has no function object")
        call_id, name, arguments = (
            call.get("id", ""),
            function.get("name"),
            function.get("arguments"),
        )
        if not (isinstance(call_id, str) and isinstance(name, str) and isinstance(arguments, str)):
            raise Crashed(f"tool_calls[{position}]: id, name and arguments must be strings")
        out.append(Call(escaped(call_id), escaped(name), escaped(arguments)))
    return Assembled(calls=tuple(out), error=error)


def parse_spec(spec: str) -> tuple[str, list[str]]:
    """`NAME=COMMAND` as the name and the command's arguments."""
    name, equals, command = spec.partition("=")
    name = escaped(name.strip())
    if not equals or not name or not command.strip():
        raise SpecError(f"{spec!r} is not NAME=COMMAND")
    try:
        arguments = shlex.split(command)
    except ValueError as exc:
        raise SpecError(f"{spec!r}: {exc}") from None
    return name, arguments


def environment_specs(environ: Mapping[str, str]) -> list[str]:
    """The `NAME=COMMAND` entries of `TOOLCALL_EXTERNAL`, one per non-blank line."""
    text = environ.get(ENVIRONMENT_VARIABLE, "")
    return [line.strip() for line in text.splitlines() if line.strip()]
