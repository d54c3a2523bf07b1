"""The deterministic parts on their own: clock, holder, names, extraction parsing."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.errors import ExtractionError
from orma_proxy.sleep.clock import find_date_phrase, prefers_future, resolve
from orma_proxy.sleep.extract import parse_extraction
from orma_proxy.sleep.holder import resolve_holder
from orma_proxy.sleep.names import NameMerger, forbidden_attribute, normalise_attribute
from orma_proxy.sleep.verify import conditional_frame

pytestmark = pytest.mark.both_backends

# Wednesday 21 October 2026, 10:00 in Kolkata: the fixed clock.
SAID = datetime(2026, 10, 21, 10, 0, tzinfo=ZoneInfo("Asia/Kolkata"))


@pytest.mark.parametrize(
    ("line", "label"),
    [
        ("I went trekking last Saturday.", "2026-10-17"),
        ("I'm flying to Goa next week.", "week of 2026-10-26"),
        ("I moved here last week.", "week of 2026-10-12"),
        ("My exam was on 3 May.", "2026-05-03"),
        ("I'll see her on 3 May.", "2027-05-03"),
        ("Yesterday I met Priya.", "2026-10-20"),
        ("We met two days ago.", "2026-10-19"),
        ("I'll visit on Saturday.", "2026-10-24"),
        ("I visited on Saturday.", "2026-10-17"),
        ("Since 2019 I have lived here.", "2019"),
        ("We moved in May 2025.", "2025-05"),
        ("It happened last month.", "2026-09"),
        # A count of weeks names a day; a weekend, the week it ends.
        ("Three weeks ago I sold my car.", "2026-09-30"),
        ("We're going in two weeks.", "2026-11-04"),
        ("My cousins came over last weekend.", "week of 2026-10-12"),
        ("We're painting the hall next weekend.", "week of 2026-10-26"),
        # Something one has on a weekday is ahead; one had, behind.
        ("I have a vet appointment on Monday.", "2026-10-26"),
        ("I had a vet appointment on Monday.", "2026-10-19"),
    ],
)
def test_date_phrases_resolve_against_the_moment_said(line: str, label: str) -> None:
    phrase = find_date_phrase(line)
    assert phrase is not None
    resolved = resolve(phrase, SAID, future=prefers_future(line))
    assert resolved is not None and resolved.label() == label


def test_a_line_without_a_date_has_no_phrase() -> None:
    assert find_date_phrase("I like green tea.") is None


@pytest.mark.parametrize(
    ("line", "value", "claimed", "preceding", "holder"),
    [
        ("My sister Asha is allergic to nuts.", "nuts", "Asha", [], "Asha"),
        ("I'm Sahil and I live in Pune.", "Pune", "Asha", [], "user"),
        ("She works at Infosys.", "Infosys", "Asha", ["My sister Asha is a nurse."], "Asha"),
        ("She works at Infosys.", "Infosys", "Mumbai", ["My sister Asha is a nurse."], "Asha"),
        ("My manager is Priya.", "Priya", "user", [], "user"),
        ("my brother is allergic to cats", "cats", "brother", [], "user's brother"),
        ("Ravi moved to Chennai.", "Chennai", "Ravi", [], "Ravi"),
        ("Never chain commands with semicolons.", "chain commands", "user", [], "user"),
        ("Sahil loves cricket.", "cricket", "user", [], "user"),
        ("In Antwerp, near the zoo.", "Antwerp", "user", ["Where do you live?"], "user"),
        ("Use rebase instead of merge.", "rebase instead of merge", "user", [], "user"),
    ],
)
def test_holder_is_decided_by_the_line_not_the_model(
    line: str, value: str, claimed: str, preceding: list[str], holder: str
) -> None:
    decided = resolve_holder(line, value, claimed, preceding, user_name="Sahil")
    assert not isinstance(decided, str) and decided.name == holder


@pytest.mark.parametrize(
    ("line", "value", "preceding", "reason"),
    [
        ("My sister Asha is allergic to nuts.", "nuts", [], "about Asha"),
        ("She works at Infosys.", "Infosys", ["My sister Asha is a nurse."], "about Asha"),
        ("Ravi moved to Chennai.", "Chennai", [], "about Ravi"),
        ("Indore is where my parents live.", "Indore", [], "names user's parents"),
        ("He loves cricket.", "cricket", [], "'He' refers to nobody"),
    ],
)
def test_an_item_saying_the_user_for_someone_elses_fact_is_refused_not_moved(
    line: str, value: str, preceding: list[str], reason: str
) -> None:
    decided = resolve_holder(line, value, "user", preceding)
    assert isinstance(decided, str) and reason in decided


def test_conditional_frames_are_found_in_the_line() -> None:
    line = "When I have a sore throat, I drink ginger tea."
    assert conditional_frame(line, "ginger tea") == "sore throat"
    assert conditional_frame("I drink tea if it rains.", "tea") == "it rains"
    assert conditional_frame("I drink black coffee.", "black coffee") == ""


def test_attribute_names_are_normalised_and_synonyms_share_a_slot() -> None:
    assert normalise_attribute("City of Residence") == "home_city"
    assert normalise_attribute("user_current_city") == "home_city"
    assert normalise_attribute("My Allergies") == "allergy"
    assert forbidden_attribute("rule", "never chain PowerShell commands") == (
        "forbidden_chain_powershell_commands"
    )
    assert forbidden_attribute("forbidden_semicolons", "x") == "forbidden_semicolons"


async def test_names_merge_by_embedding_only_above_the_threshold(embedder: OnnxEmbedder) -> None:
    async def embed(texts: list[str]) -> np.ndarray:
        return embedder.embed(texts)

    merger = NameMerger(embed, ["favourite_colour", "employer"], threshold=0.85)
    assert await merger.merge("favorite_color", key=str) == "favourite_colour"
    assert await merger.merge("home_city", key=str) == "home_city"
    assert await merger.merge("Home_City", key=str.lower) == "home_city"


def test_a_bare_array_or_prose_is_malformed() -> None:
    with pytest.raises(ExtractionError):
        parse_extraction("[1, 2, 3]")
    with pytest.raises(ExtractionError):
        parse_extraction("I could not find anything.")
    parsed = parse_extraction('{"states": [{"line": "[s4]", "attribute": "a", "value": "b"}]}')
    assert parsed.states[0].line == 4 and parsed.events == []
