"""The page of one case: where its stream came from, the stream event by event with the bytes
that matter marked, the expected turn, each implementation's answer beside it with the
difference, and the commands that replay it.

Answers are compared as lines a reader can follow, one per call field (`id`, `name`, then the
arguments as indented JSON) and one for the error, the same lines for the expected turn and the
answer; `difflib` marks what is missing from the answer (`-`) and what only the answer has (`+`),
so the difference is in words and signs, not only in colour.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from . import events
from .html import esc, implementation_href, page, slug, value, verdict


def lines(answer: Mapping[str, Any]) -> list[str]:
    """A turn (calls and error) as the lines its difference is drawn from."""
    out = []
    for number, call in enumerate(answer.get("calls", [])):
        out += [f"call {number}: id {call['id']!r}", f"call {number}: name {call['name']!r}"]
        try:
            parsed = json.loads(call["arguments"])
        except ValueError:
            out.append(f"call {number}: arguments (not JSON) {call['arguments']!r}")
            continue
        shown = json.dumps(parsed, indent=2, ensure_ascii=False, sort_keys=True)
        out += [f"call {number}: arguments {line}" for line in shown.splitlines()]
    if not answer.get("calls"):
        out.append("no calls")
    out.append("error: reported" if answer.get("error") else "error: none")
    return out


def difference(expected: Mapping[str, Any], answer: Mapping[str, Any]) -> str:
    """The answer's lines against the expected ones, as a `<pre>` with each line's sign."""
    rows = []
    for line in difflib.ndiff(lines(expected), lines(answer)):
        sign, text = line[:1], line[2:]
        if sign == "?":
            continue
        css = {"-": ' class="del"', "+": ' class="add"'}.get(sign, "")
        rows.append(f"<span{css}>{esc(sign or ' ')} {esc(text)}</span>")
    return '<pre class="diff">' + "\n".join(rows) + "</pre>"


def _answer(result: Mapping[str, Any], expected: Mapping[str, Any] | None) -> str:
    name = result["implementation"]
    word = result["verdict"]
    parts = [
        f'<section id="impl-{esc(slug(name))}" class="answer">',
        f'<h3><a href="{implementation_href(name, "../")}">{esc(name)}</a>: '
        f'<span class="verdict" data-verdict="{esc(word)}">{verdict(word)}</span></h3>',
    ]
    if result.get("reason"):
        parts.append(f"<p>{esc(result['reason'])}</p>")
    answer = result.get("answer")
    if answer is None:
        parts.append('<p class="muted">No answer: the implementation raised or was skipped.</p>')
    else:
        if answer.get("error"):
            parts.append(f"<p>Error it reported: <code>{esc(answer['error'])}</code></p>")
        if expected is not None and word != "pass":
            parts.append(
                "<p>The difference (<code>-</code> expected, missing from the answer; "
                "<code>+</code> only in the answer):</p>" + difference(expected, answer)
            )
        elif expected is None or lines(expected) != lines(answer):
            parts.append("<pre>" + esc("\n".join(lines(answer))) + "</pre>")
    parts.append("</section>")
    return "".join(parts)


def _events(case: Mapping[str, Any]) -> str:
    found = events.split(case["body"], case["wire"], case.get("framing", ""))
    items = "".join(f"<li><pre>{events.marked(e)}</pre></li>" for e in found[: events.SHOWN])
    notes = []
    if len(found) > events.SHOWN:
        notes.append(f"{len(found) - events.SHOWN} more events are not shown.")
    if case["body_bytes"] > len(case["body"].encode("utf-8")):
        notes.append(f"The report keeps the first 64 KiB of its {case['body_bytes']} bytes.")
    if notes:
        notes.append(f"<code>toolcall case {esc(case['id'])}</code> shows it whole.")
    return (
        f"<p>{len(found)} events; the keys that decide the turn and their values are "
        f'<mark>marked</mark>. {" ".join(notes)}</p><ol class="events">{items}</ol>'
    )


def render(
    case_id: str, case: Mapping[str, Any] | None, results: Sequence[Mapping[str, Any]]
) -> str:
    """The case page; `case` is None for a matrix report that carries no cases (an older
    run), and then the page has the verdicts only."""
    expected = case["expected"] if case is not None else None
    body = []
    if case is not None:
        facts = [
            ("wire", case["wire"]),
            ("provider", case["provider"]),
            ("route", case["route"]),
            ("kind", case["kind"]),
            ("scenario", case["scenario"]),
        ]
        body.append(
            "<dl>" + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts) + "</dl>"
        )
    body.append(
        "<h2>Replay it</h2><pre>"
        + esc(f"toolcall case {case_id}\ntoolcall matrix --case {case_id}")
        + "</pre>"
    )
    if case is not None:
        body.append("<h2>Provenance</h2>" + value(case["provenance"]))
        body.append("<h2>Expected</h2><pre>" + esc("\n".join(lines(case["expected"]))) + "</pre>")
        if case["expected"].get("error"):
            body.append(f"<p>{esc(case['expected']['error'])}</p>")
    body.append("<h2>Answers</h2>" + "".join(_answer(r, expected) for r in results))
    if case is not None:
        body.append("<h2>The stream</h2>" + _events(case))
    return page(f"Case {case_id}", "".join(body), up="../")
