"""From SSE payloads to the parts of a turn: one decoded chunk at a time.

Providers disagree on where things live, so this reads every place the evidence shows:
usage in a `choices: []` chunk (OpenAI, Qwen, Grok), on the finish chunk (DeepSeek, GLM, Gemini),
`null` on every chunk (Doubao), or inside `choices[0].usage` (Moonshot); `finish_reason` alone on
its own chunk or beside the last tool delta (Doubao, Gemini); `reasoning_content` before the call
(DeepSeek, GLM, Kimi, Qwen, Grok mini, Doubao) or `reasoning` (relays such as OpenRouter). Text,
reasoning and arguments are kept apart: a client that mixes them sends garbage to the tool.

This loop is the hot path of the library, so it is written for speed: a chunk whose envelope
repeats a learned one is not decoded at all (`_fast.templates`), and otherwise locals stand in for
attribute look-ups and types are checked only where a wrong one would otherwise slip through.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from .._errors import StreamError, ToolCallError, UsageError, shown
from .._fast.templates import ARGUMENTS, CONTENT, REASONING, SuffixTemplate, learn
from .._json import Refused
from .._turn.events import ReasoningDelta, TextDelta, reasoning_delta, text_delta
from ._base import WireReader, provider_error


class ChatReader(WireReader):
    """Decodes chunk payloads, feeds tool-call deltas to an assembler, keeps the rest of a turn.

    A turn ends at its first `finish_reason`, but GLM-4.5 puts one on every whole-call chunk, so
    chunks after it are still read. A chunk after it with another chunk id that carries calls,
    content or reasoning starts a second generation (a relay sent the whole answer twice): it
    and everything after it are left out, and `second_generation` says where it began.
    """

    wire = "chat"
    #: Finish reasons that say the turn was stopped before it was done: its last call may be cut.
    cut: ClassVar[Mapping[str, str]] = {
        "length": "the output hit max_tokens",
        "content_filter": "the provider's filter cut it",
    }
    #: What the wire sends last, for the `done_absent` diagnostic.
    end_mark: ClassVar[str | None] = "'data: [DONE]'"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.finish_id: object = None
        # One template per call being streamed, found by its prefix: parallel calls interleave,
        # and trying each kept template in turn made every chunk past the eighth call a miss.
        # The prefixes of one stream differ only in the call's index, so they come in a few
        # lengths; a chunk is looked up by its first characters at each of them.
        self.templates: dict[str, SuffixTemplate] = {}
        self.prefix_lengths: list[int] = []
        self.last_template: SuffixTemplate | None = None
        # The last chunk matched another template than the chunk before it did.
        self.switched = False

    def next_template(self) -> SuffixTemplate | None:
        """The template the next chunk most likely matches: the one of the chunk before, or,
        when that chunk went to another call than the one before it (parallel calls take
        turns), the template that followed it last time."""
        template = self.last_template
        if self.switched and template is not None and template.following is not None:
            return template.following
        return template

    def take(self, template: SuffixTemplate, fragment: str) -> bool:  # type: ignore[override]
        """A chunk the builder matched against `next_template()`, read as `read` reads it;
        True when the template changed, and with it the one that most likely follows."""
        self.chunks += 1
        switched = template is not self.last_template
        if switched:
            self.last_template = template
        self.switched = switched
        if template.kind != ARGUMENTS:
            if fragment:
                self._text(fragment, template.kind)
        else:
            self.assembler.append_arguments(template.wire_index, fragment, template.call_type)
        return switched

    def read(self, payloads: list[str]) -> None:
        """Take the data payloads of consecutive SSE events. A live socket's single event is
        most often taken before it gets here, by the builder's shortcut (`next_template`)."""
        loads = self.loads
        feed_fragment = self.assembler.append_arguments
        for text in payloads:
            self.chunks += 1
            template = self.last_template
            if template is not None:
                fragment = template.match(text)
                if fragment is None:
                    template, fragment = self._another_template(text, template)
                else:
                    self.switched = False
                if fragment is not None:
                    if template.kind == ARGUMENTS:
                        feed_fragment(template.wire_index, fragment, template.call_type)
                    elif fragment:
                        self._text(fragment, template.kind)
                    continue
            if text == "[DONE]":
                self.done = True
                self._read_in_full()
                continue
            try:
                chunk = loads(text)
            except Refused as exc:
                raise StreamError(f"chunk {self.chunks} cannot be read: {exc}") from None
            except ValueError as exc:
                raise StreamError(f"chunk {self.chunks} is not valid JSON: {exc}") from None
            self._chunk(chunk, text)

    def read_value(self, event: object) -> None:
        """A chunk decoded without its text (`WireReader.read_long`), read as `read` reads a
        decoded one, with no template learned from it."""
        self.chunks += 1
        self._chunk(event, None)

    def _chunk(self, chunk: Any, text: str | None) -> None:
        """Read one decoded chunk; `text` is what it was decoded from, to learn a template by
        (None: learn none)."""
        if (self.finish_reasons or self.done) and self._another_generation(chunk):
            return
        try:
            choices = chunk.get("choices")
            if choices:
                if len(choices) != 1 or choices[0].get("index", 0) != 0:
                    self._check_single_choice(choices)
                choice = choices[0]
                delta = choice.get("delta")
                if delta:
                    # Reasoning, then text, then calls: the order a turn is written in, so
                    # that events from one chunk come in that order too.
                    piece = delta.get("reasoning_content") or delta.get("reasoning")
                    if piece:
                        if type(piece) is not str:
                            raise StreamError(f"chunk {self.chunks}: reasoning is not text")
                        self._text(piece, REASONING)
                    piece = delta.get("content")
                    if piece:
                        if type(piece) is not str:
                            raise StreamError(f"chunk {self.chunks}: content is not a string")
                        self._text(piece, CONTENT)
                    calls = delta.get("tool_calls")
                    if calls:
                        feed = self.assembler.feed
                        for call in calls:
                            feed(call)
                    if self.learning and text is not None:
                        learned = learn(text, chunk)
                        if learned is not None:
                            self._remember(learned)
                finish = choice.get("finish_reason")
                if finish:
                    self._finish(finish, chunk)
                usage = choice.get("usage")
                if usage:
                    self.usage = usage
            elif chunk.get("error"):
                raise provider_error(chunk["error"])
            usage = chunk.get("usage")
            if usage:
                self.usage = usage
        except UsageError:
            # feed() blames its caller for a value that is not a delta; here the value came
            # from the provider's chunk, so the provider broke the rule.
            raise StreamError(
                f"chunk {self.chunks}: tool_calls must hold objects, got {shown(calls)}"
            ) from None
        except ToolCallError:
            raise
        except (AttributeError, TypeError, KeyError, IndexError) as exc:
            raise StreamError(
                f"chunk {self.chunks} does not have the chat.completion.chunk shape: "
                f"{type(exc).__name__}: {shown(exc)}"
            ) from None

    def _another_template(
        self, text: str, tried: SuffixTemplate
    ) -> tuple[SuffixTemplate, str | None]:
        """The template of another call (parallel calls interleave) that `text` matches, and
        its literal; `tried`, None when no kept template matches (not a fragment, or new).

        Interleaved calls come in a fixed order, so the template that followed `tried` last
        time is tried first: one comparison, where the lookup slices and hashes the prefix.
        """
        following = tried.following
        if following is not None:
            fragment = following.match(text)
            if fragment is not None:
                self.last_template = following
                self.switched = True
                return following, fragment
        for length in self.prefix_lengths:
            found = self.templates.get(text[:length])
            if found is not None and found is not tried:
                fragment = found.match(text)
                if fragment is not None:
                    self.last_template = tried.following = found
                    self.switched = True
                    return found, fragment
                break
        return tried, None

    def _text(self, piece: str, kind: int) -> None:
        """Keep a piece of text or reasoning (counted against the text limit) and report it."""
        event: Callable[[str], TextDelta | ReasoningDelta]
        if kind == CONTENT:
            what, kept, event = "content", self.content, text_delta
        else:
            what, kept, event = "reasoning", self.reasoning, reasoning_delta
        self.assembler.spend_text(len(piece), what)
        kept.add(piece)
        if self.events is not None:
            self.events.append(event(piece))

    def _finish(self, finish: object, chunk: dict[str, Any]) -> None:
        if type(finish) is not str:
            raise StreamError(f"finish_reason must be a string, got {shown(finish)}")
        if not self.finish_reasons:
            self.finish_id = chunk.get("id")
            self._read_in_full()
        if finish not in self.finish_reasons:
            self.finish_reasons.append(finish)

    def _read_in_full(self) -> None:
        """From here on every chunk is read in full, to see whether it starts a generation."""
        self.templates.clear()
        self.prefix_lengths.clear()
        self.last_template = None
        self.learning = False

    def _another_generation(self, chunk: Any) -> bool:
        """Whether `chunk`, read after a finish or after `[DONE]`, belongs to a second
        generation (then skip it).

        After a finish, a chunk of another id that adds to the turn begins one (GLM-4.5 sends a
        finish on every whole-call chunk of the same id). After `[DONE]`, the wire's own end,
        any chunk that adds to the turn does, whatever its id: a body sent twice repeats ids.
        """
        if self.second_generation is not None:
            return True
        chunk_id = chunk.get("id") if type(chunk) is dict else None
        choices = chunk.get("choices") if type(chunk) is dict else None
        choice = choices[0] if type(choices) is list and choices else None
        delta = choice.get("delta") if type(choice) is dict else None
        adds = (
            type(delta) is dict
            and any(
                delta.get(key)
                for key in ("tool_calls", "content", "reasoning_content", "reasoning")
            )
        ) or (type(choice) is dict and bool(choice.get("finish_reason")))
        if not adds:
            return False
        if self.done:
            self.second_generation = (
                f"chunk {self.chunks}, after 'data: [DONE]', began another generation; it and "
                "all after it were left out"
            )
            return True
        if not chunk_id or not self.finish_id or chunk_id == self.finish_id:
            return False
        if not (
            type(delta) is dict
            and any(
                delta.get(key)
                for key in ("tool_calls", "content", "reasoning_content", "reasoning")
            )
        ):
            return False
        self.second_generation = (
            f"chunk {self.chunks}, after the finish, began another generation (chunk id "
            f"{shown(chunk_id)}, not {shown(self.finish_id)}); it and all after it were left out"
        )
        return True

    def _remember(self, template: SuffixTemplate) -> None:
        """Keep `template`, replacing one with the same prefix, and try it first from now on.

        There is one per prefix, and so at most one per call: `max_calls` bounds them.
        """
        self.templates[template.prefix] = template
        if len(template.prefix) not in self.prefix_lengths:
            self.prefix_lengths.append(len(template.prefix))
        self.last_template = template
        self.switched = False

    def _check_single_choice(self, choices: list[Any]) -> None:
        indices = [c.get("index", 0) if isinstance(c, dict) else c for c in choices]
        raise StreamError(
            f"chunk {self.chunks} has choices {shown(indices)}: only one choice (n=1) can carry "
            "a turn"
        )
