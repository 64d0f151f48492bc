"""The README's streaming example, run as written against a cassette served over real HTTP."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

from toolcall.harness import serving
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[1]
SUITE = load_suite(ROOT)


def readme_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Streaming:", 1)[1]
    block = re.search(r"```python\n(.+?)```", section, re.DOTALL)
    assert block is not None, "the README's streaming example moved"
    return block.group(1)


def test_the_readme_streaming_example_starts_each_tool_before_the_turn_ends() -> None:
    """Text printed as it comes, each call announced, the form filling in, and each tool
    submitted on ToolCallDone while the body is still being read, before `finish()`."""
    ran: list[dict[str, Any]] = []

    def get_weather(**arguments: Any) -> str:
        ran.append(dict(arguments))
        return f"sunny in {arguments['city']}"

    forms: list[str] = []
    scenario = SUITE.scenarios["parallel_calls"]
    code = readme_example()
    assert code.count("for event in builder.finish():") == 1
    code = code.replace(
        "for event in builder.finish():",
        "submitted_before_finish = len(running)\nfor event in builder.finish():",
    )
    with serving.serving(SUITE) as running:
        namespace: dict[str, Any] = {
            "url": running.url("openai") + "/chat/completions",
            "request": {"model": "gpt-4o", "stream": True, **scenario.request},
            "auth": {"Authorization": "Bearer not-a-key"},
            "TOOLS": {"get_weather": get_weather},
            "show_form": lambda index, form: forms.append(f"{index}:{form!r}"),
        }
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["submitted_before_finish"] == 2
    assert printed.getvalue().count("calling get_weather...") == 2
    assert sorted(a["city"] for a in ran) == ["Paris", "Tokyo"]
    assert sorted(namespace["results"].values()) == ["sunny in Paris", "sunny in Tokyo"]
    assert len(set(forms)) > 4  # the arguments filled in as they streamed
