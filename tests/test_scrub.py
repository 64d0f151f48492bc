"""Scrubbing by structure: URLs, keys in every JSON form, messages cut only after scrubbing."""

from __future__ import annotations

import pytest

from toolcall.harness.recording import scrub, secrets

KEY = "sk-" + "Loopback/Key-" + "0123456789"


@pytest.mark.parametrize(
    ("base", "endpoint"),
    [
        ("http://h/v1", "http://h/v1/chat/completions"),
        ("http://h/v1/", "http://h/v1/chat/completions"),
        ("http://h/v1?api-version=1", "http://h/v1/chat/completions?api-version=1"),
    ],
)
def test_the_endpoint_goes_before_the_query(base: str, endpoint: str) -> None:
    assert scrub.chat_url(base) == endpoint


def test_a_url_keeps_only_allow_listed_query_values_and_no_userinfo() -> None:
    dirty = "https://me:" + "pw@gw.example/v1?apiKey=abc&subscription-key=def&api-version=2&alt=sse"
    assert scrub.url(dirty) == (
        "https://gw.example/v1?apiKey=<REDACTED>&subscription-key=<REDACTED>&api-version=2&alt=sse"
    )


def test_a_key_is_found_in_every_json_form() -> None:
    escaped_dash = KEY.replace("-", "\\u002D")
    escaped_slash = KEY.replace("/", "\\/")
    text = f"{KEY} {escaped_dash} {escaped_slash} end"
    assert scrub.redact(text, [KEY]) == "<API_KEY> <API_KEY> <API_KEY> end"


def test_short_keys_are_never_searched_for() -> None:
    assert secrets.searchable(["anything", "the", KEY, KEY, "has space in it, long"]) == [KEY]
    assert scrub.redact("anything goes", ["anything"]) == "anything goes"


def test_printable_scrubs_before_it_cuts() -> None:
    text = "x" * (scrub.DETAIL_LENGTH - 3) + KEY
    shown = scrub.printable(text, [KEY])
    assert KEY[:3] not in shown and shown.endswith("...")
    assert "Bearer" not in scrub.printable("Bearer " + "abcdefghijklmnop1234", [])
