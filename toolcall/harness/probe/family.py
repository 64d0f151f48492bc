"""Whose model a name is: one of the providers of providers.yaml, or `other`.

Open-weight models are served under many names (`Qwen/Qwen3-32B`, `qwen3:8b`,
`accounts/fireworks/models/kimi-k2-instruct`), so the guess is by the stem the provider's own
model names start with (`qwen`, `kimi`, `deepseek`, `glm`), after any organisation prefix; a
name no stem fits is `other`, judged on the wire's rules alone. `--family` overrides it.
"""

from __future__ import annotations

import re

from ..suite.profiles import Provider, Suite

OTHER = "other"


def stems(provider: Provider) -> set[str]:
    """The leading letters of the provider's model names (`gpt` of `gpt-4o`), and its key."""
    names = {provider.model, *(cell.model for cell in provider.cells.values())}
    found = {re.match(r"[a-z]*", name.lower()).group(0) for name in names}  # type: ignore[union-attr]
    return {stem for stem in found | {provider.key} if len(stem) >= 3}


def guess(suite: Suite, model: str) -> str:
    """The provider key whose stem starts the model's name (its last path segment, or any
    segment after an organisation), else `OTHER`."""
    segments = [s for s in re.split(r"[/]", model.lower()) if s]
    for segment in reversed(segments):
        for provider in suite.providers.values():
            if any(segment.startswith(stem) for stem in stems(provider)):
                return provider.key
    return OTHER


def check(suite: Suite, family: str) -> str | None:
    """Why `--family` cannot be used, or None."""
    if family == OTHER or family in suite.providers:
        return None
    return f"--family {family!r} is not a provider of providers.yaml: {[*suite.providers, OTHER]}"
