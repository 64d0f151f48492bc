"""What every page of the report shares: escaping, the page frame with its inline style and
navigation, tables, verdicts in words, and the file names pages link each other by.

A verdict's colour only repeats what its words say (a mark and the label), so the site reads the
same printed in black and white or through a screen reader.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: The pages in the navigation, by file name, in order.
NAV = (
    ("index.html", "Overview"),
    ("matrix.html", "Matrix"),
    ("gateways.html", "Gateways"),
    ("probes.html", "Probes and doctor"),
)

STYLE = """
:root{--fg:#111;--bg:#fff;--muted:#555;--line:#ccc;--pass:#dff3df;--fail:#fbdcdc;--other:#fff1c9}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);
  background:var(--bg);margin:0}
header{border-bottom:1px solid var(--line);padding:.5rem 1rem}
header nav a{margin-right:1rem}
main{padding:0 1rem 2rem;max-width:110rem}
a{color:#0645ad}
a:focus,tr:focus,input:focus,select:focus{outline:3px solid #1a56db;outline-offset:1px}
table{border-collapse:collapse;margin:.5rem 0 1rem}
th,td{border:1px solid var(--line);padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.v-pass{background:var(--pass)}
.v-fail{background:var(--fail)}
.v-other{background:var(--other)}
.muted{color:var(--muted)}
pre,code{font:13px/1.35 ui-monospace,"DejaVu Sans Mono",monospace}
pre{background:#f7f7f7;border:1px solid var(--line);padding:.4rem;overflow-x:auto;
  white-space:pre-wrap;word-break:break-all}
mark{background:#ffe58a;outline:1px solid #b08800}
.diff .del{background:var(--fail)}
.diff .add{background:var(--pass)}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin:.5rem 0}
.filters label{display:flex;flex-direction:column;font-size:13px}
#matrix td a{text-decoration:none;color:inherit;display:block}
#matrix td{font-size:13px}
#matrix tbody tr:hover{outline:1px solid #888}
ol.events li{margin-bottom:.3rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem}
dd{margin:0}
dt{font-weight:600}
.beside{display:flex;flex-wrap:wrap;gap:0 2rem;align-items:flex-start}
"""

#: The mark before each kind of verdict, so its kind is read without its colour.
MARKS = {"pass": "\u2713", "fail": "\u2717", "other": "\u2013"}
#: Verdicts that are neither a pass nor a wrong answer.
NEUTRAL = ("n/a", "skipped", "not applicable")


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def kind_of(verdict: str) -> str:
    """pass, fail or other: the class (colour) and mark of a verdict word."""
    if verdict in ("pass", "same"):
        return "pass"
    return "other" if verdict in NEUTRAL else "fail"


def verdict(word: str, *, said: str = "") -> str:
    """A verdict as its mark and words (`said` overrides the words shown)."""
    return f"{MARKS[kind_of(word)]} {esc(said or word)}"


def slug(name: str) -> str:
    """A file name for a case or an implementation: readable, and the same for the same name."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "_"
    if cleaned != name:
        cleaned += "-" + hashlib.sha256(name.encode()).hexdigest()[:8]
    return cleaned


def case_href(case_id: str, up: str = "") -> str:
    return f"{up}cases/{slug(case_id)}.html"


def implementation_href(name: str, up: str = "") -> str:
    return f"{up}implementations/{slug(name)}.html"


def page(title: str, body: str, *, up: str = "", script: str = "") -> str:
    """A whole page: `up` is the path back to the site's root (`../` for a case page)."""
    links = " ".join(f'<a href="{up}{href}">{esc(label)}</a>' for href, label in NAV)
    tail = f"<script>{script}</script>" if script else ""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{esc(title)} · toolcall report</title><style>{STYLE}</style></head>"
        f'<body><header><nav aria-label="report">{links}</nav></header>'
        f"<main><h1>{esc(title)}</h1>{body}</main>{tail}</body></html>\n"
    )


def table(
    headers: Sequence[str], rows: Iterable[Sequence[str]], *, numeric: Sequence[int] = ()
) -> str:
    """A table from cells already escaped (headers are escaped here); `numeric` columns align
    right."""
    head = "".join(
        f'<th{" class=num" if i in numeric else ""} scope="col">{esc(h)}</th>'
        for i, h in enumerate(headers)
    )
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=num' if i in numeric else ''}>{c}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def value(item: Any) -> str:
    """Any JSON value as HTML a reader can scan: objects as key/value tables, lists of objects
    as tables, other lists as lists, scalars as text (for the probe and doctor reports, whose
    inner shapes are theirs)."""
    if isinstance(item, Mapping):
        if not item:
            return '<span class="muted">(none)</span>'
        rows = [(f"<code>{esc(k)}</code>", value(v)) for k, v in item.items()]
        return table(["key", "value"], rows)
    if isinstance(item, list):
        if not item:
            return '<span class="muted">(none)</span>'
        if all(isinstance(x, Mapping) for x in item):
            keys = list(dict.fromkeys(k for x in item for k in x))
            return table(keys, ([value(x.get(k, "")) for k in keys] for x in item))
        return "<ul>" + "".join(f"<li>{value(x)}</li>" for x in item) + "</ul>"
    if item is None:
        return '<span class="muted">null</span>'
    if isinstance(item, bool | int | float):
        return esc(json.dumps(item))
    return esc(item)


def embedded(document: object) -> str:
    """JSON for a `<script type="application/json">` element: `<` escaped, so no text in it
    can close the element."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
