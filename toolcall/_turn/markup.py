"""Tool-call markup a server left in the text, and names that hold a template's tokens.

A self-hosted server turns the model's tool-call markup into `tool_calls` with a parser chosen
per model family. When that parser is off, wrong or loses its place, the call streams on as text
in the content or the reasoning, `tool_calls` stays empty and the finish says `stop`
(vllm-project/vllm#28297, #50512, #46040, waybarrios/vllm-mlx#107): the caller runs nothing and
is not told. Each family's markup is one row of `FORMATS`, data and not branches: the marker the
template opens a call with, and what must follow it within `_WINDOW` characters for the text to
be a call rather than prose that names the marker.

The text is searched once, when the turn ends, whole: a marker split across pieces or events is
whole again there, and the cost is one `str.find` pass per marker over text the turn joins
anyway, whatever the number of pieces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Markup:
    """One family's call markup: `marker` opens a call when `follows` matches right after it."""

    format: str
    marker: str
    follows: re.Pattern[str]


#: Characters after a marker that `follows` may read: a name and the start of its arguments.
_WINDOW = 256
_NAME = r"[A-Za-z_][\w.\-]*"

FORMATS: tuple[Markup, ...] = (
    # <tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>  (vllm#28297)
    Markup("Hermes/Qwen", "<tool_call>", re.compile(r'\s*\{\s*"(?:name|arguments)"')),
    # <tool_call>\n<function=f>\n<parameter=x>...  (vllm-mlx#107, Qwen3-Coder)
    Markup("Qwen3-Coder XML", "<tool_call>", re.compile(r"\s*<function=")),
    # <tool_call>f\n<arg_key>x</arg_key><arg_value>...; a call without arguments closes at once
    # (<tool_call>get_current_time</tool_call>, vllm#44326, #46040)
    Markup("GLM", "<tool_call>", re.compile(r'\s*[^\s<>{}"]+\s*(?:<arg_key>|</tool_call>)')),
    # <|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>
    # (the section marker also singular, vllm#32146)
    Markup("Kimi", "<|tool_calls_section_begin|>", re.compile(r"\s*<\|tool_call_begin\|>")),
    Markup("Kimi", "<|tool_call_section_begin|>", re.compile(r"\s*<\|tool_call_begin\|>")),
    Markup(
        "Kimi",
        "<|tool_call_begin|>",
        re.compile(r"\s*[\w.\-]+(?::\d+)?\s*<\|tool_call_argument_begin\|>"),
    ),
    # <(U+FF5C)tool(U+2581)calls(U+2581)begin(U+FF5C)> then the same with `call` for each call,
    # `function`, <(U+FF5C)tool(U+2581)sep(U+FF5C)> and the name (full-width bars, U+2581 blocks)
    Markup("DeepSeek", "<\uff5ctool\u2581calls\u2581begin\uff5c>", re.compile(r"\s*<\uff5c")),
    Markup(
        "DeepSeek",
        "<\uff5ctool\u2581call\u2581begin\uff5c>",
        re.compile(r"[^<>\n]{0,80}<\uff5ctool\u2581sep\uff5c>"),
    ),
    # <|channel|>commentary to=functions.f <|constrain|>json<|message|>{...}<|call|>  (vllm#32587)
    Markup("harmony (gpt-oss)", "to=functions.", re.compile(_NAME)),
    # [TOOL_CALLS][{"name": ...}] or [TOOL_CALLS]f[ARGS]{...} (or [CALL_ID] between)
    Markup(
        "Mistral",
        "[TOOL_CALLS]",
        re.compile(r"\s*(?:\[\s*\{|\{|" + _NAME + r"\s*(?:\[ARGS\]|\[CALL_ID\]|\{))"),
    ),
    # <|tool_call>call:f{location:<|"|>NYC<|"|>}<tool_call|>  (vllm#44522, ai-dynamo#131)
    Markup("Gemma 4", "<|tool_call>", re.compile(r"\s*call:")),
    # <|content_invoke_tool_json|>{"name": ...}  (vllm#50512)
    Markup("Inkling", "<|content_invoke_tool_json|>", re.compile(r"\s*\{")),
)

_BY_MARKER: dict[str, tuple[Markup, ...]] = {}
for _markup in FORMATS:
    _BY_MARKER[_markup.marker] = (*_BY_MARKER.get(_markup.marker, ()), _markup)
del _markup


def markup_in(text: str) -> list[tuple[Markup, int]]:
    """Each format whose call markup `text` holds, with where it first does, in text order.

    Linear: one `find` pass per marker, and at each place a marker stands, one match of at most
    `_WINDOW` characters per format it opens; a format found is not looked for again.
    """
    found: dict[str, tuple[Markup, int]] = {}
    if not text:
        return []
    for marker, markups in _BY_MARKER.items():
        at = text.find(marker)
        while at >= 0:
            # A format found before this place (by this marker or another) is found.
            pending = [m for m in markups if m.format not in found or found[m.format][1] > at]
            if not pending:
                break
            after = at + len(marker)
            for markup in pending:
                if markup.follows.match(text, after, after + _WINDOW):
                    found[markup.format] = (markup, at)
            at = text.find(marker, after)
    return sorted(found.values(), key=lambda hit: hit[1])


#: What no tool's name holds, and a template's markup does: special-token brackets (Kimi's,
#: harmony's and Gemma's `<|...|>`, DeepSeek's with full-width bars, U+FF5C), Mistral's control
#: tokens and the tags of the XML-like formats.
_NAME_MARKUP = (
    "<|",
    "|>",
    "<\uff5c",
    "\uff5c>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "<tool_call",
    "</tool_call",
    "<arg_key>",
    "<function=",
)


def name_flaw(name: str) -> str | None:
    """Why `name` cannot be a tool's name, or None: it holds template markup (the
    `query_dataset<|channel|>commentary` of vllm#32587), whitespace or a control character. No
    wire's rule for names allows either, so a call under such a name names no tool."""
    for token in _NAME_MARKUP:
        if token in name:
            return f"holds the template markup {token!r}: a server's parser left it there"
    if name.isprintable() and " " not in name:
        return None
    at, char = next((n, c) for n, c in enumerate(name) if c == " " or not c.isprintable())
    return f"holds whitespace or a control character ({char!r} at character {at})"
