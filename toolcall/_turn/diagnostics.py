"""Diagnostics: what a stream did that was legal but unusual, or that the library repaired.

A repair that is not reported is silent data rewriting; these records make every repair visible
to the caller (and to the conformance report) without turning tolerated quirks into errors.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Every code the library can emit, with what it means. Closed on purpose: a consumer can switch
#: on the code, and a new code is an API change.
CODES: dict[str, str] = {
    "index_absent": "a tool-call delta had no index; it was routed by id or name",
    "index_reused": "a new id arrived on an index that another call already held; a new call began",
    "index_disagrees_with_id": "a delta's id belongs to a call opened at another index; id won",
    "name_repeated": "a delta repeated the call's whole name; it was not appended",
    "arguments_object": "arguments arrived as a JSON value, not a string; serialised once",
    "arguments_resent": "a fragment re-sent all arguments so far plus more; it replaced them",
    "orphan_fragment": "an arguments fragment arrived before any call it could belong to",
    "stop_with_tool_calls": "finish_reason was 'stop' although the turn holds tool calls",
    "second_generation": (
        "after the turn ended, another generation began (a body sent twice); left out"
    ),
    "done_after_end": "after the wire's own end came chat's 'data: [DONE]', as a relay that "
    "also serves chat completions sends it; read as the end of the body",
    "sse_comment": "the stream carried SSE comment lines (for example ': keep-alive')",
    "done_absent": "the body ended without its wire's last event ('data: [DONE]' on chat, "
    "a JSON array's closing ']')",
    "unterminated_final_event": "the last event had no end (SSE: a blank line; NDJSON: a newline)",
    "id_repeated": "two calls the wire keeps apart carried the same id; both were kept",
    "tool_call_in_text": (
        "the content or reasoning holds a model family's tool-call markup (the message names "
        "the format): a call the server did not parse, left as text and never run"
    ),
}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One observation: its `code` (a key of `CODES`), a readable message, and the call index."""

    code: str
    message: str
    index: int | None = None

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "index": self.index}
