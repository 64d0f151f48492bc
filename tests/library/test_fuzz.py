"""The mutation fuzzer's short run, and every past finding replayed (see tests/helpers/fuzzing.py).

The short run is derandomized, so `make test` gives the same verdict on every machine; `make fuzz`
explores for minutes with fresh randomness and keeps what it finds in tests/helpers/fuzz_corpus/.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.helpers import fuzzing
from tests.helpers.outcomes import outcome

CORPUS = fuzzing.corpus()


def test_the_corpus_is_not_empty() -> None:
    assert len(CORPUS) >= 10


@pytest.mark.parametrize(("body", "limits"), [c[1:] for c in CORPUS], ids=[c[0] for c in CORPUS])
def test_past_findings_keep_every_promise(body: bytes, limits: dict[str, Any]) -> None:
    cuts = random.Random(body).sample(range(len(body) + 1), min(8, len(body) + 1))
    fuzzing.check_body(body, cuts, limits)
    fuzzing.check_body(body, list(range(len(body) + 1)), limits)  # byte by byte
    whole = outcome(body, **limits)
    for cut in range(0, len(body), max(1, len(body) // 2000)):  # in two, everywhere
        assert outcome([body[:cut], body[cut:]], **limits) == whole, f"split at {cut}"


@pytest.mark.slow  # a fuzzing run of its own; `make fuzz` runs longer ones
def test_a_short_fuzzing_run_over_real_bodies_is_clean() -> None:
    fuzzing.run(400, derandomize=True)
