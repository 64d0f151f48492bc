"""The subprocess protocol: any program, in any language, checked like the in-process peers.

The program reads the stream's chunks on standard input, one JSON object per line in stream order
(the decoded `data:` payloads, without `[DONE]`), and writes one JSON document on standard
output when the input ends:

    {"tool_calls": [{"id": "...", "type": "function",
                     "function": {"name": "...", "arguments": "<JSON text>"}}]}

or, when it judges the stream bad (a cut-off call, say), `{"error": "<message>"}`. It exits 0
either way. A non-zero exit, a run longer than the time limit, or output that is not such a
document is a crash, reported with the last line the program wrote on standard error. Programs are
named on the command line (`toolcall matrix --external NAME=COMMAND`) or in the environment
variable `TOOLCALL_EXTERNAL`, one `NAME=COMMAND` per line; COMMAND is split like a shell would
split it, but no shell runs it.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import Assembled, Call, Chunk, first_line

ENVIRONMENT_VARIABLE = "TOOLCALL_EXTERNAL"
DEFAULT_TIMEOUT = 10.0


class Crashed(Exception):
    """The program broke the protocol; the message is the one-line reason shown in the matrix."""


class SpecError(ValueError):
    """A `NAME=COMMAND` entry that cannot be used."""


class External:
    """One external program, run once per stream."""

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
        self.version = "external: " + shlex.join(self.command)
        self.timeout = timeout
        self.cwd = cwd

    def assemble(self, chunks: Sequence[Chunk], request: Mapping[str, Any]) -> Assembled:
        lines = "".join(json.dumps(chunk, ensure_ascii=False) + "\n" for chunk in chunks)
        try:
            done = subprocess.run(
                self.command,
                input=lines.encode("utf-8"),
                capture_output=True,
                timeout=self.timeout,
                cwd=self.cwd,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise Crashed(f"timed out after {self.timeout:g} s") from None
        except OSError as exc:
            raise Crashed(f"cannot start {self.command[0]!r}: {exc.strerror or exc}") from None
        stderr = _last_line(done.stderr)
        if done.returncode != 0:
            raise Crashed(f"exit status {done.returncode}" + (f": {stderr}" if stderr else ""))
        try:
            document = json.loads(done.stdout)
        except ValueError:
            shown = first_line(done.stdout.decode("utf-8", "replace"), 60) or "nothing"
            raise Crashed(f"standard output is not one JSON document: {shown!r}") from None
        return read_document(document)


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
