"""One capture examined whole: read, identified, its findings and clients, as one document.

The document is the `--json` output (format: `toolcall/schemas/doctor.schema.json`); the text and
Markdown renderings are made from it, never from the objects behind it, so the three always say
the same.
"""

from __future__ import annotations

import json
import platform
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import toolcall

from ..suite.profiles import DIRECT, Suite
from . import clients, findings, request
from .capture import Capture
from .identify import UNKNOWN, Identity, identify
from .reading import Reading, Started, body, body_pieces, read

#: Characters of the text and the reasoning shown.
SHORT = 240


@dataclass
class Options:
    """What the command line chose: the wire (or "auto"), a request file's JSON, the clients."""

    wire: str = "auto"
    request: dict[str, Any] | None = None
    implementations: Sequence[str] = ()
    externals: Sequence[str] = ()
    clients: bool = True
    timeout: float = 30.0
    #: where to write the body alone, as a client receives it (for `toolcall publish`)
    body_out: Path | None = None


def examine(suite: Suite, capture: Capture, options: Options) -> dict[str, Any]:
    """The report of one capture (a JSON-ready document)."""
    reading = read(capture, options.wire)
    if options.body_out is not None:
        with options.body_out.open("wb") as out:
            out.writelines(body_pieces(capture, reading))
    identity = identify(suite, capture, reading)
    found = findings.findings(suite, reading, identity)
    asked = options.request if options.request is not None else capture.request
    if asked is not None and reading.turn is not None:
        found += request.check(asked, reading.turn)
    verdicts: list[clients.ClientVerdict] = []
    unavailable: dict[str, str] = {}
    if options.clients and reading.wire != UNKNOWN:
        verdicts, unavailable = _clients(capture, reading, identity, asked, options)
    return {
        "report": "doctor",
        "version": 1,
        "source": capture.source,
        "capture": _capture(capture, reading),
        "wire": identity.wire.to_dict(),
        "framing": identity.framing.to_dict(),
        "model": identity.model.to_dict(),
        "provider": identity.provider.to_dict(),
        "route": identity.route.to_dict(),
        "sound": not any(f.severity == "error" for f in found),
        "turn": _turn(reading),
        "calls": _calls(reading),
        "findings": [f.to_dict() for f in found],
        "clients": [v.to_dict() for v in verdicts],
        "unavailable": unavailable,
        "publish": publish_command(suite, capture, identity, reading, options.body_out),
        "versions": {"toolcall": toolcall.__version__, "python": platform.python_version()},
    }


def _clients(
    capture: Capture,
    reading: Reading,
    identity: Identity,
    asked: Mapping[str, Any] | None,
    options: Options,
) -> tuple[list[clients.ClientVerdict], dict[str, str]]:
    whole = body(capture, reading, clients.MAX_BODY)
    if whole is None:
        return [], {"*": f"the body is larger than {clients.MAX_BODY >> 20} MiB"}
    available, unavailable = clients.implementations(
        options.implementations, options.externals, options.timeout
    )
    sent = clients.placeholder_request(identity.model.value, reading)
    if asked is not None and request.tools_of(asked):
        # The clients are handed chat's shape, whatever the wire, as the matrix hands them.
        sent["tools"] = request.tools_of(asked)
    framing = reading.framing if reading.framing == "json-array" else ""
    return clients.judge_all(available, reading, whole, sent, framing), unavailable


def _capture(capture: Capture, reading: Reading) -> dict[str, Any]:
    return {
        "form": capture.form,
        "status": capture.status,
        "headers": [list(pair) for pair in capture.shown_headers()],
        "url": capture.url,
        "compressed": capture.compressed,
        "events": reading.events,
        "bytes": reading.size,
    }


def _turn(reading: Reading) -> dict[str, Any] | None:
    turn = reading.turn
    if turn is None:
        return None
    return {
        "finish_reason": turn.finish_reason,
        "usage": turn.usage,
        "content": turn.content[:SHORT],
        "reasoning": turn.reasoning[:SHORT],
        "content_chars": len(turn.content),
        "reasoning_chars": len(turn.reasoning),
        "custom_calls": [
            {"id": c.id, "name": c.function.name, "input": c.function.arguments}
            for c in turn.custom_calls
        ],
        "server_tool_calls": [
            {"kind": c.kind, "name": c.name, "id": c.id, "input": c.input}
            for c in turn.server_tool_calls
        ],
    }


def _calls(reading: Reading) -> list[dict[str, Any]]:
    """The turn's calls; of a turn that broke before its end, the calls as far as they came."""
    turn = reading.turn
    if turn is None:
        return [_partial(index, call) for index, call in sorted(reading.started.items())]
    return [
        {
            "index": call.index,
            "id": call.id,
            "name": call.function.name,
            "arguments": arguments,
            "arguments_text": call.function.arguments,
            "complete": True,
            "event": _began(reading, call.index),
        }
        for call, arguments in zip(turn.tool_calls, turn.arguments, strict=True)
    ]


def _began(reading: Reading, index: int) -> int | None:
    started = reading.started.get(index)
    return None if started is None else started.began.event


def _partial(index: int, call: Started) -> dict[str, Any]:
    try:
        arguments = json.loads(call.arguments) if call.done else None
    except ValueError:
        arguments = None
    return {
        "index": index,
        "id": call.id,
        "name": call.name,
        "arguments": arguments,
        "arguments_text": call.arguments,
        "complete": call.done,
        "event": call.began.event,
    }


def publish_command(
    suite: Suite, capture: Capture, identity: Identity, reading: Reading, out: Path | None
) -> str:
    """The `toolcall publish` command that brings the capture into the suite, after the scan."""
    placeholder = "BODY" + {"ndjson": ".ndjson", "json-array": ".json"}.get(reading.framing, ".sse")
    body_file = str(out) if out is not None else placeholder
    if out is None and capture.form == "body" and capture.source != "-":
        body_file = capture.source
    route = identity.route.value
    kind = suite.routes[route].kind if route in suite.routes else DIRECT
    origin = {"direct": "first-party", "host": "host"}.get(kind, "relay")
    named = reading.wire if reading.wire != UNKNOWN else "WIRE"
    wire = [] if reading.wire == "chat" else ["--wire", named]  # chat is publish's default
    words = [
        "toolcall",
        "publish",
        body_file,
        *wire,
        "--provider",
        _recorded_as(suite, identity.provider.value, reading.wire),
        "--model",
        identity.model.value if identity.model.value != UNKNOWN else "MODEL",
        "--origin",
        origin,
    ]
    if route not in (DIRECT, UNKNOWN):
        words += ["--route", route]
    words += ["--repository", "OWNER/NAME", "--path", "PATH", "--commit", "COMMIT"]
    words += ["--license", "SPDX-ID"]
    if reading.wire == "chat" and reading.framing == "ndjson" and body_file == capture.source:
        words.append("--jsonl")  # chat's chunks one per line, as captured
    scan = f"toolcall scan {shlex.quote(body_file)}"
    command = f"{scan} && {shlex.join(words)}"
    if body_file == placeholder:
        command += f"  # {placeholder}: the body alone, as --body-out {placeholder} writes it"
    return command


def _recorded_as(suite: Suite, provider: str, wire: str) -> str:
    """The provider as `toolcall publish` takes it: its providers.yaml key on chat, and on
    another wire the name its recordings give (`recorded_as`: Google's Gemini API recorded as
    `google-gemini-api`), when its offer of the wire has one; else a placeholder."""
    if provider == UNKNOWN:
        return "PROVIDER"
    if wire == "chat":
        return provider
    names = {
        n
        for o in suite.wire_offers
        if (o.provider, o.wire) == (provider, wire)
        for n in o.recorded_as
    }
    return names.pop() if len(names) == 1 else "PROVIDER"


def dumps(document: Mapping[str, Any]) -> str:
    return json.dumps(document, indent=1, ensure_ascii=False, default=str)
