"""Identifiers in their common spellings: the purge of one must find all of them."""

from __future__ import annotations

import pytest

from orma_proxy.text.identifiers import find_identifiers, same


def only(text: str) -> tuple[str, str]:
    found = find_identifiers(text)
    assert len(found) == 1, found
    return found[0].kind, found[0].canonical


@pytest.mark.parametrize(
    "text",
    [
        'Mail it to "nila.george"@postbox.example.org today',
        "nila dot george at postbox dot example dot org",
        "nila.george [at] postbox [dot] example [dot] org",
        "nila.george(at)postbox.example.org",
        "NILA.George@PostBox.Example.ORG.",
    ],
)
def test_an_email_in_any_spelling_reads_as_one(text: str) -> None:
    assert only(text) == ("email", "nila.george@postbox.example.org")


@pytest.mark.parametrize(
    "text", ["+44 7700 900123", "07700-900123", "(770) 090-0123", "7700900123"]
)
def test_phone_numbers_match_across_country_codes_and_separators(text: str) -> None:
    wanted = find_identifiers("call 7700 900123")[0]
    assert same(wanted, find_identifiers(text)[0])


def test_a_different_number_with_the_same_tail_is_not_the_same() -> None:
    a = find_identifiers("7700 900123")[0]
    b = find_identifiers("1239 7700 900123")[0]  # four extra digits: another number
    assert not same(a, b)


def test_keys_urls_and_plain_prose() -> None:
    assert only("token ghp_Q2w3E4r5T6y7U8i9O0pA1sD2 leaked") == (
        "key",
        "ghp_Q2w3E4r5T6y7U8i9O0pA1sD2",
    )
    assert only("see https://www.Wiki.example.net/page/ later") == (
        "url",
        "wiki.example.net/page",
    )
    assert find_identifiers("I work at Lanterna and paid 450 in 2024.") == []
