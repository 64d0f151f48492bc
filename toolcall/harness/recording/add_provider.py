"""`toolcall add-provider`: a new provider's complete profile, ready for `make record ... ACCEPT=1`.

The skeleton lists every scenario of scenarios.yaml as `pending`, declares no quirks and has no
`synthesis` block: a provider added this way is known only through its recordings, and until each
cell is recorded (or marked `not_applicable` with the reason) conformance names the command that
records it. The block is appended through ruamel.yaml's round-trip mode, so the rest of
providers.yaml, comments included, is left exactly as it was; the result must load as a suite
before it replaces the file.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..suite.profiles import ProfileError, Suite
from . import roundtrip, scrub

_NAME = re.compile(r"[a-z][a-z0-9_]*")
_KEY_ENV = re.compile(r"[A-Z][A-Z0-9_]*")


def add_provider(suite: Suite, name: str, *, base_url: str, key_env: str, model: str) -> Path:
    """Append `name`'s skeleton to the suite's providers.yaml; return the file's path."""
    where = f"add-provider {name}"
    if not _NAME.fullmatch(name):
        raise ProfileError(f"add-provider {name!r}: a provider name is lower case, [a-z][a-z0-9_]*")
    if name in suite.providers:
        raise ProfileError(f"{where}: providers.yaml already has providers.{name}")
    if not _KEY_ENV.fullmatch(key_env):
        raise ProfileError(f"{where}: --key-env names a variable, [A-Z][A-Z0-9_]*: {key_env!r}")
    problem = scrub.url_problem(base_url)
    if problem is not None:
        raise ProfileError(f"{where}: --base-url must be an http(s) URL: {problem}")
    if scrub.url(base_url) != base_url:
        raise ProfileError(
            f"{where}: --base-url carries credentials (userinfo, or a query value other than "
            f"{', '.join(scrub.SAFE_QUERY_PARAMETERS)}); providers.yaml is committed, so the key "
            f"goes in {key_env} and the rest in TOOLCALL_{name.upper()}_BASE_URL"
        )
    path = suite.root / "providers.yaml"
    doc = roundtrip.load(path)
    block = roundtrip.block()
    block["name"] = name
    block["base_url"] = base_url
    block["key_env"] = key_env
    block["model"] = model
    block["evidence"] = (
        f"Known only through what `toolcall record` records from {base_url}; nothing else is "
        "known about its stream."
    )
    block["quirks"] = roundtrip.flow({})
    block["scenarios"] = roundtrip.block()
    for scenario in suite.scenarios:
        block["scenarios"][scenario] = roundtrip.flow(
            {"provenance": roundtrip.flow({"kind": "pending"})}
        )
    providers = doc["providers"]
    providers[name] = block
    providers.yaml_set_comment_before_after_key(
        name, before="\n" + "-" * 75 + f"\n{name}: added by toolcall add-provider", indent=2
    )
    roundtrip.save(path, doc, f"add-provider {name}")
    return path
