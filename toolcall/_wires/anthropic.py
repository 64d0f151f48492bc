"""Anthropic's Messages stream (`POST /v1/messages`, `stream: true`), and the Anthropic-compatible
endpoints of DeepSeek, Kimi, GLM and Qwen.

A call is a content block: `content_block_start` with a `tool_use` block (its id, name and an
empty `input: {}`) opens it, `content_block_delta` events with `input_json_delta` carry the
arguments text in `partial_json` (padded with whitespace at times, which is JSON and kept), and
`content_block_stop` closes it. A block that received no text at all is given its `input`,
written as JSON, so a call without parameters closes at its stop as every other call does.
A `server_tool_use` (or `mcp_tool_use`) block is a tool the provider runs itself (web search, an
MCP server's tool): it is no call of the turn but is recorded on it (`ServerToolCall`), its
input the text its `input_json_delta` events streamed (else its `input`, written as JSON), its
result the block that answers it (a `*_tool_result` block whose `tool_use_id` names it). Text
(`text_delta`) and reasoning (`thinking_delta`) are blocks too; a thinking block's `signature`
(and a redacted block's `data`) must go back with the next request, so they are kept on the
turn, under `extra_content["anthropic"]`.

`message_delta` carries the stop reason (`tool_use`, `end_turn`, `max_tokens`: a cut) and the
usage; `message_stop` ends the stream; `ping` events carry nothing; an `error` event is the
provider's error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .._errors import StreamError, TruncatedError, shown
from .._fast.templates import PatternTemplate, pattern_template
from ._base import WireReader, provider_error

#: Content blocks of tools the provider runs itself, and how a block answering one ends.
_SERVER_BLOCKS = ("server_tool_use", "mcp_tool_use")
_RESULT_BLOCK = "_tool_result"


class AnthropicReader(WireReader):
    wire = "anthropic"
    cut: ClassVar[Mapping[str, str]] = {"max_tokens": "the output hit max_tokens"}
    end_mark = "'message_stop'"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The `input` of each open call block, by block index, written at its stop if no text came.
        self._inputs: dict[object, object] = {}
        self._start_usage: dict[str, Any] | None = None
        # Blocks of tools the provider runs itself, whose input is no call's arguments, to the
        # input their start gave (written at their stop if no delta came).
        self._server_blocks: dict[object, object] = {}
        # The id of each tool the provider runs, to its key, for the block that answers it.
        self._server_ids: dict[object, object] = {}

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "content_block_delta":
            delta = event["delta"]
            delta_kind = delta.get("type")
            if delta_kind == "input_json_delta":
                index = event.get("index")
                if index in self._server_blocks:
                    self.server_input(("server", index), delta["partial_json"])
                else:
                    self.append(self._number(event), delta["partial_json"])
            elif delta_kind == "text_delta":
                self.text(delta["text"])
            elif delta_kind == "thinking_delta":
                self.text(delta["thinking"], reasoning=True)
            elif delta_kind == "signature_delta":
                self.keep_turn_extra("anthropic", "thinking_signatures", delta["signature"])
        elif kind == "content_block_start":
            block = event["content_block"]
            block_kind = block.get("type")
            if block_kind in _SERVER_BLOCKS:
                # Run by the provider (web search), not by the caller: no call of the turn.
                index = event.get("index")
                self.open_server(("server", index), block_kind, block.get("name"), block.get("id"))
                self._server_blocks[index] = block.get("input")
                self._server_ids[block.get("id")] = ("server", index)
            elif block_kind == "tool_use":
                index = event.get("index")
                if self.call_number(("block", index)) is not None and index not in self._inputs:
                    raise StreamError(
                        f"anthropic event {self.chunks}: content block {shown(index)} starts "
                        "again after its content_block_stop",
                        index=self.call_number(("block", index)),
                    )
                self.open_call(("block", index), block.get("id"), block.get("name"))
                self._inputs.setdefault(index, block.get("input"))
            elif block_kind == "text":
                self.text(block.get("text"))
            elif block_kind == "thinking":
                self.text(block.get("thinking"), reasoning=True)
                if block.get("signature"):
                    self.keep_turn_extra("anthropic", "thinking_signatures", block["signature"])
            elif block_kind == "redacted_thinking":
                self.keep_turn_extra("anthropic", "redacted_thinking", block.get("data"))
            elif type(block_kind) is str and block_kind.endswith(_RESULT_BLOCK):
                answered = self._server_ids.get(block.get("tool_use_id"))
                if answered is not None:
                    self.server_result(answered, block)
        elif kind == "content_block_stop":
            index = event.get("index")
            if index in self._inputs:
                self._stop(self._number(event), self._inputs.pop(index))
            elif index in self._server_blocks:
                self.server_whole_input(("server", index), self._server_blocks.pop(index))
        elif kind == "message_delta":
            # Its usage counts the output; the input counts came in message_start.
            self.keep_usage(event.get("usage"), over=self._start_usage)
            reason = (event.get("delta") or {}).get("stop_reason")
            if reason is not None:
                self.finish(reason)
        elif kind == "message_start":
            self.keep_usage((event.get("message") or {}).get("usage"))
            self._start_usage = self.usage
        elif kind == "message_stop":
            self.done = True
            self.end_turn("message_stop")
        elif kind == "error":
            raise provider_error(event.get("error") or event)

    def adds_to_turn(self, event: dict[str, Any]) -> bool:
        return event.get("type") not in ("ping", "error")

    def close(self) -> None:
        """A tool_use block that never got its `content_block_stop` is not finished, whatever
        its `input` or deltas said: the stream was cut inside the call."""
        for index in self._inputs:
            number = self.call_number(("block", index))
            raise TruncatedError(
                f"the tool_use content block {shown(index)} never got its content_block_stop: "
                "the call may be cut off",
                index=number,
                name=self._opened_name(number),
            )

    def _stop(self, number: int, given: object) -> None:
        """A call's block stopped: its `input` is the arguments when no text came, and is
        checked against the text when both came (two answers, no way to choose)."""
        streamed = self.streamed(number)
        if streamed is None:
            self.whole_arguments(number, given)
            return
        if given is None or given == {}:
            return
        try:
            read = self.loads(streamed)
        except ValueError:
            return  # not one JSON value: validation says what is wrong with the arguments
        if read != given:
            raise StreamError(
                "the tool_use block's input differs from the arguments its deltas streamed",
                index=number,
                name=self._opened_name(number),
            )

    def learn(self, text: str, event: dict[str, Any]) -> PatternTemplate | None:
        if event.get("type") != "content_block_delta":
            return None
        delta = event["delta"]
        if delta.get("type") != "input_json_delta" or event.get("index") in self._server_blocks:
            return None
        literal = delta["partial_json"]
        number = self.call_number(("block", event.get("index")))
        if number is None or not literal:
            return None
        return pattern_template(text, "partial_json", literal, {}, number)

    def _number(self, event: dict[str, Any]) -> int:
        number = self.call_number(("block", event.get("index")))
        if number is None:
            raise StreamError(
                f"anthropic event {self.chunks}: input for content block "
                f"{event.get('index')!r}, which no tool_use content_block_start opened"
            )
        return number
