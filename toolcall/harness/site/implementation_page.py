"""The page of one implementation: its counts, and its failures grouped by verdict, each
linking to the case page that shows its answer beside the expected one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .html import case_href, esc, page, slug, verdict


def render(implementation: Mapping[str, Any], results: Sequence[Mapping[str, Any]]) -> str:
    name = implementation["name"]
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for result in results:
        if result["verdict"] != "pass":
            groups.setdefault(result["verdict"], []).append(result)
    body = [
        f"<p>Version: {esc(implementation['version'])}. Passed "
        f'<span data-passed="{implementation["passed"]}">{implementation["passed"]}</span> of '
        f'<span data-total="{implementation["total"]}">{implementation["total"]}</span>.</p>'
    ]
    if implementation.get("glue"):
        body.append(
            f"<p>Its program said it adds glue around the library it checks: "
            f"{esc(implementation['glue'])}. The verdicts judge that code too.</p>"
        )
    if not groups:
        body.append("<p>No failures.</p>")
    for word, failed in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
        items = "".join(
            f'<li><a href="{case_href(_id(r), "../")}#impl-{esc(slug(name))}">{esc(_id(r))}</a>'
            f" ({esc(r.get('wire', 'chat'))}): {esc(r['reason'])}</li>"
            for r in failed
        )
        body.append(
            f'<h2 data-verdict="{esc(word)}">{verdict(word)} ({len(failed)})</h2><ul>{items}</ul>'
        )
    return page(f"Implementation {name}", "".join(body), up="../")


def _id(result: Mapping[str, Any]) -> str:
    return str(result.get("id") or f"{result['provider']}/{result['scenario']}")
