"""The implementation protocol: any program, in any language, checked like the in-process peers.

The harness starts the program once and talks to it in JSON lines over its standard input and
output, as Bowtie talks to JSON Schema validators (the messages are defined, one `$defs` entry
each, in `toolcall/schemas/protocol.schema.json`, and the harness validates every message it
sends and receives against it):

    -> {"cmd": "start", "protocol": 2}
    <- {"protocol": 2, "implementation": {"name": "naive", "version": "0.1", "language": "python"}}
    -> {"cmd": "assemble", "seq": 1, "request": {...}, "chunks": [{...}, ...]}
    <- {"seq": 1, "tool_calls": [{"id": "...", "type": "function",
                                  "function": {"name": "...", "arguments": "<JSON text>"}}]}
    ...
    -> {"cmd": "stop"}

`chunks` are the stream's decoded `data:` payloads in order, without `[DONE]`. An answer may carry
`error` (the implementation judged the stream bad: a cut-off call, say) with or without calls. A
program that speaks another protocol version is refused at the handshake, with both versions
named. One long-lived process per implementation keeps a run of a hundred streams from paying a
hundred interpreter starts. A late answer, a wrong `seq`, a message the schema rejects, or a
program that exits is a crash, reported with the last line it wrote on standard error; the next
stream starts it afresh. Programs are named on the command line (`toolcall matrix --external
NAME=COMMAND`) or in `TOOLCALL_EXTERNAL`, one `NAME=COMMAND` per line; COMMAND is split like a
shell would split it, but no shell runs it.
"""

from __future__ import annotations

import json
import queue
import shlex
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..profiles import format_schema
from . import Assembled, Call, Chunk, first_line

ENVIRONMENT_VARIABLE = "TOOLCALL_EXTERNAL"
DEFAULT_TIMEOUT = 10.0
PROTOCOL = 2
_SCHEMA = format_schema("protocol.schema.json")


class Crashed(Exception):
    """The program broke the protocol; the message is the one-line reason shown in the matrix."""


class SpecError(ValueError):
    """A `NAME=COMMAND` entry that cannot be used."""


class External:
    """One external program, started once and fed every stream in turn."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.command = list(command)
        self.timeout = timeout
        self.cwd = cwd
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._stderr: list[str] = []
        self._seq = 0
        self._identity = ""

    @property
    def version(self) -> str:
        """Who the program says it is (its handshake), or why it could not say."""
        try:
            self._ensure_started()
        except Crashed as exc:
            return f"external: {shlex.join(self.command)} (no handshake: {exc})"
        return self._identity

    def assemble(self, chunks: Sequence[Chunk], request: Mapping[str, Any]) -> Assembled:
        self._ensure_started()
        self._seq += 1
        self._send({"cmd": "assemble", "seq": self._seq, "request": request, "chunks": chunks})
        answer = self._receive("answer")
        if answer["seq"] != self._seq:
            self.close()
            raise Crashed(f"answered seq {answer['seq']} to seq {self._seq}")
        answer.pop("seq")
        return read_document(answer)

    def close(self) -> None:
        """Say stop, and make sure the program is gone."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.poll() is None and process.stdin is not None:
                process.stdin.write(b'{"cmd": "stop"}\n')
                process.stdin.close()
            process.wait(timeout=self.timeout)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()

    # -- the pipe ------------------------------------------------------------------------

    def _ensure_started(self) -> None:
        if self._process is not None and self._process.poll() is None:
            return
        try:
            process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
            )
        except OSError as exc:
            raise Crashed(f"cannot start {self.command[0]!r}: {exc.strerror or exc}") from None
        self._process = process
        self._lines = queue.Queue()
        self._stderr = []
        assert process.stdout is not None and process.stderr is not None
        _pump(process.stdout, self._lines.put)
        _pump(process.stderr, lambda line: self._stderr.append(line.decode("utf-8", "replace")))
        self._send({"cmd": "start", "protocol": PROTOCOL})
        started = self._receive("started")
        if started["protocol"] != PROTOCOL:
            self.close()
            raise Crashed(
                f"speaks protocol {started['protocol']}, the harness speaks {PROTOCOL} "
                "(see toolcall/schemas/protocol.schema.json)"
            )
        who = started["implementation"]
        self._identity = f"{who['name']} {who['version']} ({who['language']})"

    def _send(self, message: Mapping[str, Any]) -> None:
        _check(message, "harness sent", str(message["cmd"]))
        process = self._process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
            process.stdin.flush()
        except OSError:
            raise self._died() from None

    def _receive(self, kind: str) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self.close()
            raise Crashed(f"timed out after {self.timeout:g} s") from None
        if not line:
            raise self._died()
        try:
            message = json.loads(line)
        except ValueError:
            self.close()
            shown = first_line(line.decode("utf-8", "replace"), 60)
            raise Crashed(f"sent a line that is not JSON: {shown!r}") from None
        _check(message, "program sent", kind)
        assert isinstance(message, dict)
        return message

    def _died(self) -> Crashed:
        process, self._process = self._process, None
        status = process.wait() if process is not None else None
        last = next((line for line in reversed(self._stderr) if line.strip()), "").strip()
        return Crashed(f"exit status {status}" + (f": {first_line(last)}" if last else ""))


def _pump(stream: IO[bytes], sink: Any) -> None:
    """Read a pipe line by line on a daemon thread (an empty line marks its end), so a silent
    program is caught by a timeout instead of blocking the run."""

    def run() -> None:
        for line in iter(stream.readline, b""):
            sink(line)
        sink(b"")

    threading.Thread(target=run, daemon=True).start()


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
    error = str(document["error"]) if document.get("error") is not None else None
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
        out.append(Call(call_id, name, arguments))
    return Assembled(calls=tuple(out), error=error)


def parse_spec(spec: str) -> tuple[str, list[str]]:
    """`NAME=COMMAND` as the name and the command's arguments."""
    name, equals, command = spec.partition("=")
    name = name.strip()
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


def _last_line(data: bytes) -> str:
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    return first_line(lines[-1]) if lines else ""
