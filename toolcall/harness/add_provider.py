"""`toolcall add-provider`: a new provider's complete profile, ready for `make record ... ACCEPT=1`.

The skeleton lists every scenario of scenarios.yaml as `pending`, declares no quirks and has no
`synthesis` block: a provider added this way is known only through its recordings, and until each
cell is recorded (or marked `not_applicable` with the reason) conformance names the command that
records it. The block is appended through ruamel.yaml's round-trip mode, so the rest of
providers.yaml, comments included, is left exactly as it was; the result must load as a suite
before it replaces the file.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from .profiles import ProfileError, Suite, load_suite

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_KEY_ENV = re.compile(r"^[A-Z][A-Z0-9_]*$")


def add_provider(suite: Suite, name: str, *, base_url: str, key_env: str, model: str) -> Path:
    """Append `name`'s skeleton to the suite's providers.yaml; return the file's path."""
    from ruamel.yaml.comments import CommentedMap

    from .accept import _yaml
    from .cassettes import write_atomically

    where = f"add-provider {name}"
    if not _NAME.match(name):
        raise ProfileError(f"{where}: a provider name is lower case, [a-z][a-z0-9_]*")
    if name in suite.providers:
        raise ProfileError(f"{where}: providers.yaml already has providers.{name}")
    if not _KEY_ENV.match(key_env):
        raise ProfileError(f"{where}: --key-env names a variable, [A-Z][A-Z0-9_]*: {key_env!r}")
    if not re.match(r"^https?://[^/]", base_url):
        raise ProfileError(f"{where}: --base-url must be an http(s) URL: {base_url!r}")
    path = suite.root / "providers.yaml"
    yaml = _yaml()
    original = path.read_text(encoding="utf-8")
    doc = yaml.load(original)
    block = CommentedMap()
    block["name"] = name
    block["base_url"] = base_url
    block["key_env"] = key_env
    block["model"] = model
    block["evidence"] = (
        f"Recorded with `toolcall record` from {base_url}; nothing else is known about its "
        "stream yet."
    )
    quirks = CommentedMap()
    quirks.fa.set_flow_style()
    block["quirks"] = quirks
    scenarios = CommentedMap()
    for scenario in suite.scenarios:
        entry = CommentedMap()
        entry["provenance"] = _flow({"kind": "pending"})
        entry.fa.set_flow_style()
        scenarios[scenario] = entry
    block["scenarios"] = scenarios
    providers = doc["providers"]
    providers[name] = block
    providers.yaml_set_comment_before_after_key(
        name, before="\n" + "-" * 75 + f"\n{name}: added by toolcall add-provider", indent=2
    )
    out = io.StringIO()
    yaml.dump(doc, out)
    write_atomically(path, out.getvalue())
    try:
        load_suite(suite.root)
    except ProfileError:
        write_atomically(path, original)
        raise
    return path


def _flow(data: dict[str, Any]) -> Any:
    from ruamel.yaml.comments import CommentedMap

    node = CommentedMap(data)
    node.fa.set_flow_style()
    return node
