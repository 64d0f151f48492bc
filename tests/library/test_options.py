"""The five ways of reading a body take the same seven options (`toolcall._options`).

Each keeps them in its own signature, where `help()` shows them; this holds the five to one
list, so an option added to one and not the others, or given another default, fails here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import pytest

import toolcall
from toolcall._options import NAMES, ReadOptions

#: Each way of reading a body, and the keywords it takes besides the options.
READERS: dict[str, tuple[Callable[..., Any], set[str]]] = {
    "TurnBuilder": (toolcall.TurnBuilder, {"events", "partial_arguments"}),
    "assemble": (toolcall.assemble, set()),
    "assemble_async": (toolcall.assemble_async, set()),
    "iter_events": (toolcall.iter_events, set()),
    "aiter_events": (toolcall.aiter_events, set()),
}


def keyword_defaults(function: Callable[..., Any]) -> dict[str, Any]:
    """The keyword-only parameters of `function` and their defaults, in order."""
    parameters = inspect.signature(function).parameters.values()
    return {p.name: p.default for p in parameters if p.kind is p.KEYWORD_ONLY}


@pytest.mark.parametrize("name", READERS)
def test_each_way_of_reading_takes_the_options_with_their_defaults(name: str) -> None:
    function, own = READERS[name]
    keywords = keyword_defaults(function)
    options = {field.name: field.default for field in fields(ReadOptions)}
    assert {k: v for k, v in keywords.items() if k not in own} == options
    assert [k for k in keywords if k not in own] == list(NAMES)


def test_the_check_sees_an_option_one_signature_lacks() -> None:
    def lacking(body: bytes, *, json_backend: str = "auto", wire: str = "chat") -> None: ...

    options = {field.name: field.default for field in fields(ReadOptions)}
    assert keyword_defaults(lacking) != options


def test_the_options_reach_the_builder_of_a_one_call_form() -> None:
    """A limit passed to `assemble` is the builder's: one call past `max_calls=1` is refused."""
    body = b"".join(
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"c%d",'
        b'"function":{"name":"f","arguments":"{}"}}]}}]}\n\n' % (n, n)
        for n in range(2)
    )
    body += b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    body += b"data: [DONE]\n\n"
    assert len(toolcall.assemble(body).tool_calls) == 2
    with pytest.raises(toolcall.LimitExceeded):
        toolcall.assemble(body, max_calls=1)
    assert ReadOptions(max_calls=1).keywords()["max_calls"] == 1
