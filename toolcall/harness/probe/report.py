"""What a probe found, three ways: lines on the terminal, a Markdown bug report for the
server's maintainers, and a JSON document (`toolcall/schemas/probe.schema.json`).

The Markdown report gives each failing code once: what was expected, the request that shows it,
the smallest excerpt of the bytes that came back, and, for the findings the public trackers
know, the server setting that usually causes them. Nothing here holds the key: requests are the
probe's own bodies, and every answer's bytes are masked before they are shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..recording import scrub
from .clients import Clients
from .judges import CODES, FAILURE, NOTE, Finding
from .session import Probe

#: The server setting or version that usually causes a known finding, with the public report.
CAUSES: dict[str, str] = {
    "tool_call_in_text": "vLLM/SGLang started without a tool parser for the model's family, or "
    "with another family's (`--enable-auto-tool-choice --tool-call-parser <family>`); a chat "
    "template that does not match the parser (vllm #50512, #28297, #25560, vllm-mlx #107)",
    "name_special_tokens": "a tool parser that leaves the harmony channel tokens in the name "
    "(gpt-oss on vLLM, `--tool-call-parser openai`; vllm #32587)",
    "calls_missing": "a streaming tool parser that drops a call without arguments while the "
    "finish reason still says tool_calls (vllm #44326), or a gateway that drops tool-call "
    "deltas",
    "arguments_buffered": "a parser that does not stream arguments: vLLM's for some families, "
    "SGLang's (vllm #42878, sglang #11888); GLM needs `tool_stream: true`",
    "index_reused": "every call sent on index 0 (ollama #15457, dynamo #4723)",
    "arguments_resent": "the arguments resent whole after the deltas, or cumulatively (eliza "
    "#16973, codex-lb #284, hermes-agent #35718)",
    "name_repeated": "the name repeated in every chunk (MiniMax through NVIDIA NIM)",
    "finish_not_length": "a server that reports `tool_calls` for a turn cut by max_tokens "
    "(vllm #58228)",
    "stop_with_tool_calls": "a proxy that maps the finish reason to `stop` (litellm #21041)",
    "arguments_not_json": "on Anthropic's wire, an Anthropic-compatible endpoint dropping the "
    'opening `{"` of the input (vllm #34887); elsewhere a parser cutting the arguments',
    "answers_disagree": "stream and non-stream paths of the server parse calls differently "
    "(vllm #47137, #56263)",
    "usage_missing": "`stream_options.include_usage` dropped by a proxy, or not supported",
}


DEFAULT_EXPECTED = "a turn the wire's own rules allow"
#: What a sound server does instead, for each failure.
EXPECTED: dict[str, str] = {
    "tool_call_in_text": "the call parsed into the wire's tool-call fields, the text free of "
    "markup",
    "name_special_tokens": "the tool's name exactly as the request declared it",
    "name_unknown": "a call of a tool the request declared",
    "calls_missing": "every call in the stream, as in the unstreamed answer; a finish reason that "
    "says calls only with calls",
    "arguments_not_json": "each call's arguments one JSON value, every byte of it sent",
    "arguments_schema": "arguments that match the tool's parameters schema",
    "finish_not_length": "a turn cut at max_tokens ends with `length` (or the wire's word for "
    "it), whatever calls it began",
    "stop_with_tool_calls": "`tool_calls` as the finish reason of a turn with calls",
    "usage_missing": "usage in the answer: on chat streamed, in a chunk after the finish when "
    "`stream_options.include_usage` is set",
    "done_absent": "the wire's own end of stream (`data: [DONE]`, `message_stop`, ...)",
    "unterminated_final_event": "every event ended (a blank line after an SSE event, a newline "
    "after an NDJSON line)",
    "stream_cut": "the stream carried to the end of the turn",
    "answers_disagree": "the same calls streamed and unstreamed",
}


@dataclass(frozen=True)
class Report:
    endpoint: str
    model: str
    wire: str
    family: str
    budget: dict[str, float]
    probe: Probe
    clients: Clients | None

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.probe.findings if f.severity == FAILURE]

    def to_json(self) -> dict[str, Any]:
        return {
            "endpoint": self.endpoint,
            "model": self.model,
            "wire": self.wire,
            "family": self.family,
            "budget": self.budget,
            "sound": not self.failures,
            "stopped": self.probe.stopped,
            "findings": [f.to_json() for f in self.probe.findings],
            "scenarios": [o.to_json() for o in self.probe.outcomes],
            "clients": self.clients.to_json() if self.clients is not None else [],
        }


def first_of_each(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Findings grouped by code, in the order first seen; a profile's quirks by quirk (each
    names another difference)."""
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        key = finding.code
        if key == "profile_differs":
            key = f"{key} {finding.message.split(':', 1)[0]}"
        grouped.setdefault(key, []).append(finding)
    return grouped


def terminal(report: Report) -> str:
    """The closing lines: each code once with where it showed, then the clients that broke."""
    lines = []
    for found in first_of_each(report.probe.findings).values():
        code = found[0].code
        severity = CODES[code][0]
        if severity == NOTE and code not in ("request_refused", "text_disagrees"):
            continue  # how the arguments came is in the JSON, per answer
        where = sorted(
            {f"{f.scenario} ({'streamed' if f.streamed else 'unstreamed'})" for f in found}
        )
        shown = ", ".join(where[:4]) + (f" and {len(where) - 4} more" if len(where) > 4 else "")
        lines.append(f"{severity.upper():8} {code}: {found[0].message[:160]}")
        lines.append(f"         in {shown}")
    if report.clients is not None:
        for name, failed in report.clients.broken().items():
            lines.append(f"CLIENT   {name} breaks on {len(failed)} stream(s): {failed[0][2][:120]}")
    if report.probe.stopped:
        lines.append(f"STOPPED  {report.probe.stopped}; the rest was not run")
    run = sum(1 for o in report.probe.outcomes if o.not_run is None)
    verdict = "sound" if not report.failures else f"{len(report.failures)} failure(s)"
    lines.append(
        f"{report.endpoint} ({report.wire}, {report.model}, family {report.family}): {run} "
        f"scenario(s) probed, {verdict}"
    )
    return "\n".join(lines) + "\n"


def markdown(report: Report, keys: Iterable[str] = ()) -> str:
    """A bug report: one section per failing code, with the request, the bytes and the cause."""
    out = [
        f"# Tool calls on {report.endpoint}",
        "",
        f"Model `{report.model}` on the {report.wire} wire (family: {report.family}), probed "
        "with `toolcall probe`.",
        "",
    ]
    if not report.failures:
        out += ["No failure was found.", ""]
    sent = {(e.scenario, e.streamed): e for e in report.probe.exchanges}
    for code, found in first_of_each(report.failures).items():  # failures: one group a code
        first = found[0]
        out += [f"## `{code}`", "", f"Found: {CODES[code][1]}.", ""]
        out += [f"Expected: {EXPECTED.get(code, DEFAULT_EXPECTED)}.", ""]
        out += [
            f"Seen in {len(found)} answer(s); first: {first.scenario}, "
            f"{'streamed' if first.streamed else 'unstreamed'}: {first.message}",
            "",
        ]
        if code in CAUSES:
            out += [f"Usually caused by: {CAUSES[code]}.", ""]
        exchange = sent.get((first.scenario, first.streamed))
        if exchange is not None:
            body = json.dumps(exchange.request, indent=1, ensure_ascii=False)
            out += [
                f"The request, `POST {scrub.url(exchange.url)}`:",
                "",
                "```json",
                body,
                "```",
                "",
            ]
        if first.excerpt:
            shown = scrub.printable(first.excerpt, keys, limit=800)
            out += ["The bytes that show it:", "", "```", shown, "```", ""]
    if report.clients is not None and report.clients.broken():
        out += ["## Clients that break on this endpoint", ""]
        for name, failed in report.clients.broken().items():
            out.append(f"- {name}: {len(failed)} stream(s), e.g. {failed[0][0]}: {failed[0][2]}")
        out.append("")
    return "\n".join(out)
