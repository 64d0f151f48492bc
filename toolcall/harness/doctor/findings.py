"""What happened in a captured stream: every quirk and every problem, as findings with codes.

The library already says it all: the diagnostics of the turn (quirks it repaired, markup left in
the text), and the error that ends a broken one (`TruncatedError`, `ArgumentsError`,
`UnsoundTurnError`, `ProviderError`). Each becomes a `Finding` with a stable code (listed once, in
`toolcall/schemas/doctor.schema.json`, with its severity), the place in the body (`reading.Where`)
and the event's bytes, plus what the suite knows about it: the profile or route that declares the
same quirk, and the published recordings that show the same.

Severity: "error" says the turn is not sound as received (a call lost, cut, broken or not what
the request allowed): the doctor exits 1. "warning" is a quirk the library repaired and other
clients may not; "info" is how the stream was framed.
"""

from __future__ import annotations

import re
from typing import Any

import toolcall

from ..recording import secrets
from ..suite.profiles import Suite
from . import evidence, quirks
from .codes import CODES, SEVERITIES, Finding, error_code
from .identify import Identity
from .reading import Reading, Where

#: Library diagnostics that are one fingerprint quirk's value (for the profiles declaring it).
QUIRK_OF: dict[str, tuple[str, Any]] = {
    "index_absent": ("index", "absent"),
    "name_repeated": ("later_name", "repeated"),
    "done_absent": ("done", False),
    "sse_comment": ("sse_comments", True),
    "stop_with_tool_calls": ("finish_reason", "stop"),
}

#: The tool-call parser setting a self-hosted server reads each family's markup with.
PARSERS: dict[str, str] = {
    "Hermes/Qwen": "vLLM `--enable-auto-tool-choice --tool-call-parser hermes`, SGLang "
    "`--tool-call-parser qwen25`, llama.cpp `--jinja`",
    "Qwen3-Coder XML": "vLLM `--tool-call-parser qwen3_coder` (or `qwen3_xml`), SGLang "
    "`--tool-call-parser qwen3_coder`",
    "GLM": "vLLM `--tool-call-parser glm45` (GLM-4.5/4.6) or `glm47`, SGLang "
    "`--tool-call-parser glm45`",
    "Kimi": "vLLM and SGLang `--tool-call-parser kimi_k2`",
    "DeepSeek": "vLLM `--tool-call-parser deepseek_v3` (or `deepseek_v31`), SGLang "
    "`--tool-call-parser deepseekv3`",
    "harmony (gpt-oss)": "vLLM `--tool-call-parser openai` (gpt-oss's harmony format), "
    "llama.cpp `--jinja`",
    "Mistral": "vLLM `--tool-call-parser mistral` (with `--tokenizer-mode mistral`)",
    "Gemma 4": "the server's Gemma tool-call parser (vLLM `--tool-call-parser gemma4`)",
    "Inkling": "the server's tool-call parser for the model",
}
_FORMAT = re.compile(r"holds (.+?) tool-call markup")


def findings(suite: Suite, reading: Reading, identity: Identity) -> list[Finding]:
    """Every finding, errors first, each in stream order."""
    found = [_from_diagnostic(suite, reading, n, d) for n, d in enumerate(_diagnostics(reading))]
    if reading.error is not None:
        found.append(_from_error(reading, reading.error))
    found += _usage(identity)
    found += quirks.findings(suite, identity.observed)
    for finding in found:
        finding.shown_in = finding.shown_in or evidence.recordings_showing(suite, finding.code)
    order = {s: n for n, s in enumerate(SEVERITIES)}
    return sorted(found, key=lambda f: order[f.severity])


def _diagnostics(reading: Reading) -> tuple[toolcall.Diagnostic, ...]:
    return reading.turn.diagnostics if reading.turn is not None else ()


def excerpt(reading: Reading, where: Where | None) -> str:
    """The bytes of the event at `where` (the last kept one at the end), secrets masked."""
    if where is None or not reading.excerpts:
        return ""
    number = where.event if where.event is not None else max(reading.excerpts)
    data = reading.excerpts.get(number)
    if data is None:
        return ""
    return secrets.mask(data.decode("utf-8", "replace")).strip()


def _from_diagnostic(
    suite: Suite, reading: Reading, number: int, diagnostic: toolcall.Diagnostic
) -> Finding:
    where = reading.diagnostic_at.get(number)
    cause = ""
    if diagnostic.code == "tool_call_in_text":
        where = reading.markup_where(diagnostic.message) or where
        family = _FORMAT.search(diagnostic.message)
        parser = PARSERS.get(family.group(1), "") if family else ""
        cause = (
            "a self-hosted server whose tool-call parser is off or is not this model's: "
            f"{parser or 'its tool-call parser setting'}"
            "; through a provider or relay, report it to them with this excerpt"
        )
    elif diagnostic.code == "stop_with_tool_calls":
        where = reading.finish_at or where
    elif diagnostic.code == "index_reused":
        cause = "calls sharing an index: a server or relay that numbers every call 0"
    if where is None:
        where = Where(None, reading.size)
    code = diagnostic.code if diagnostic.code in CODES else "library_diagnostic"
    finding = Finding(code, diagnostic.message, where, excerpt(reading, where), cause=cause)
    if diagnostic.code in QUIRK_OF:
        finding.declared_by, finding.shown_in = quirks.declared(suite, *QUIRK_OF[diagnostic.code])
    return finding


def _from_error(reading: Reading, error: toolcall.ToolCallError) -> Finding:
    where = reading.error_at
    code = error_code(error)
    if code == "calls_lost" or (code == "truncated" and "length" in error.reason):
        where = reading.finish_at or where  # the finish that claimed calls, or the cut
    return Finding(
        code, str(error), where, excerpt(reading, where), cause=_error_cause(code, error)
    )


def _error_cause(code: str, error: toolcall.ToolCallError) -> str:
    if code == "truncated":
        return "the token limit (max_tokens) was reached, or the connection was cut mid-call"
    if code == "calls_lost":
        return "a server's tool-call parser dropped the calls it ended the turn for"
    if code == "bad_name":
        return "a server's tool-call parser left the template's tokens in the name"
    if code == "invalid_arguments":
        return "the arguments' fragments do not join into one JSON object"
    return ""


def _usage(identity: Identity) -> list[Finding]:
    """Usage where a client reading chat completions does not look for it."""
    observed = identity.observed
    if observed is None:
        return []
    place = observed.quirks.get("usage")
    if place == "every_chunk":
        said = (
            "usage comes on every chunk, not once at the end: a client that sums it or "
            "takes a chunk with usage for the last one miscounts or stops early"
        )
    elif place == "in_choice":
        said = (
            "usage comes inside `choices[0]`, not at the chunk's top level, where clients read it"
        )
    else:
        return []
    return [Finding("usage_unexpected", said)]
