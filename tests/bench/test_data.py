"""bench/data/: every data file loads and has its shape, so a malformed edit fails here."""

from __future__ import annotations

import re
import string
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from bench import block_cases, forgetting_cases
from bench.cases import DATA, read_json, read_jsonl
from bench.sleep_labels import FILE, load_cases

ROLES = {"user", "assistant", "note"}
BROKEN = {"", "cut", "python", "prose"}
DATE = re.compile(r"^(?:week of )?(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$")
STATE_KEYS = {"about", "attribute", "value", "line", "condition", "prohibited", "since", "ended"}
EVENT_KEYS = {"what", "when", "who", "line"}
# the names block_cases' builder fills templates with (_Builder.v, and "old" for corrections)
BLOCK_FIELDS = {
    *("name", "sib", "pet_name", "rel", "home", "new_home", "sib_city", "company"),
    *("new_company", "job", "new_job", "drink", "new_drink", "pet", "allergen", "food"),
    *("phone", "hobby", "new_phone", "condition", "health_query", "health_reply"),
    *("health_asked", "old"),
}


def test_every_data_file_is_documented_and_used() -> None:
    readme = (DATA / "README.md").read_text()
    files = sorted(p.name for p in DATA.iterdir() if p.is_file() and p.name != "README.md")
    assert files == [
        "block_words.json",
        "forgetting_dev.jsonl",
        "forgetting_dev2.jsonl",
        "forgetting_dev2_README.md",
        "forgetting_dev3.jsonl",
        "forgetting_dev3_README.md",
        "forgetting_dev4.jsonl",
        "forgetting_dev4_README.md",
        "forgetting_dev5.jsonl",
        "forgetting_dev5_README.md",
        "forgetting_dev_README.md",
        "forgetting_words.json",
        "sleep.jsonl",
        "smollm2_dev.jsonl",
        "smollm2_dev_README.md",
    ]
    assert all(f"`{name}`" in readme for name in files)
    assert "`heldout/`" in readme


def _cited(ref: str, turns: list[dict[str, Any]]) -> bool:
    """``@words``: a line not the assistant's holds them; ``@@words``: any line does."""
    words = ref.lstrip("@").lower()
    anyone = ref.startswith("@@")
    return any(words in t["text"].lower() and (anyone or t["role"] != "assistant") for t in turns)


def _valid_date(label: str) -> bool:
    m = DATE.match(label)
    if not m:
        return False
    year, month, day = (int(g) if g else 1 for g in m.groups())
    date(year, month, day)  # raises on 2026-13 or 2026-02-30
    return not label.startswith("week of") or m.group(3) is not None


def test_the_sleep_cases_are_well_formed() -> None:
    records = [record for _, record in read_jsonl(FILE)]
    cases = load_cases()
    assert len(cases) == len(records) > 0
    assert len({c.name for c in cases}) == len(cases), "a case name is used twice"
    for record, case in zip(records, cases, strict=True):
        where = case.name
        assert case.name and case.topic, where
        assert case.turns and all(t.role in ROLES and t.text.strip() for t in case.turns), where
        for fact in case.states:
            assert fact.entity and fact.attribute and fact.value, (where, fact)
            assert isinstance(fact.active, bool), (where, fact)
        for event in case.events:
            assert event.what and (event.date == "" or _valid_date(event.date)), (where, event)
        assert record["answers"], f"{where}: no recorded answer ({{}} is an empty one)"
        for answer in record["answers"]:
            assert answer.get("broken", "") in BROKEN, where
            assert isinstance(answer.get("error", "-"), str) and answer.get("error", "-"), where
            for kind, keys, text in (
                ("states", STATE_KEYS, "value"),
                ("events", EVENT_KEYS, "what"),
            ):
                for item in answer.get(kind, []):
                    said = set(item) - {"error"}
                    assert said <= keys, (where, item)
                    assert isinstance(item.get(text), str) and item[text], (where, item)
                    assert isinstance(item.get("error", "-"), str) and item.get("error", "-")
                    ref = item.get("line")
                    if isinstance(ref, str):
                        assert ref.startswith("@") and _cited(ref, record["turns"]), (where, ref)
                    else:
                        assert ref is None or isinstance(ref, int), (where, item)
                    if kind == "events":
                        assert all(isinstance(w, str) and w for w in item["who"]), (where, item)


def test_a_recorded_answer_is_loaded_without_its_error_note() -> None:
    items = [i for c in load_cases() for a in c.answers for i in (*a.states, *a.events)]
    assert items and not any("error" in i for i in items)
    noted = [
        i for _, r in read_jsonl(FILE) for a in r["answers"] for i in a["states"] if "error" in i
    ]
    assert noted, "the data marks its recorded errors"


@pytest.mark.parametrize(
    ("line", "complaint"),
    [
        ('{"name": "x", "topic": "t", "turns": [], "answers": [{}], "labels": []}', "labels"),
        (
            '{"name": "x", "topic": "t", "turns": [{"role": "user", "txt": "hi"}], "answers": []}',
            "txt",
        ),
        ('{"name": "x", "topic": "t", "turns": []}', "answers"),
        ('{"name": "x", "topic": "t", "turns": [], "answers": [{}]', "Expecting"),
        ('["not", "an", "object"]', "JSON object"),
    ],
)
def test_a_malformed_case_fails_naming_its_line(tmp_path: Path, line: str, complaint: str) -> None:
    path = tmp_path / "cases.jsonl"
    good = (
        '{"name": "ok", "topic": "t", "turns": [{"role": "user", "text": "hi"}], "answers": [{}]}'
    )
    path.write_text(f"{good}\n\n{line}\n")
    with pytest.raises(ValueError, match=rf"cases\.jsonl:3: .*{complaint}"):
        load_cases(path)


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return [s for v in value for s in _strings(v)]


def test_the_block_words_are_well_formed() -> None:
    words = read_json(DATA / "block_words.json")
    alternatives = {alternative for _, alternative, _ in words["rules"]}  # "": a rule without one
    for name, pool in words.items():
        said = [s for s in _strings(pool) if name != "rules" or s not in alternatives]
        assert pool and all(s.strip() for s in said), name
        if isinstance(pool, list) and all(isinstance(v, str) for v in pool):
            assert len(set(pool)) == len(pool), f"{name} repeats a value"
    for name, width in (("conditions", 4), ("rules", 3), ("misc", 2)):
        assert all(len(row) == width for row in words[name]), name
    for name, width in (("facts", 4), ("corrections", 2), ("questions", 3)):
        assert all(len(row) == width for row in words[name].values()), name
    assert set(block_cases.CORE_SLOTS) <= set(words["facts"])
    assert set(words["corrections"]) == {"home", "job", "phone", "drink"}  # the fixable slots
    assert set(words["questions"]) == {"home", "job", "health", "family", "food", "hobby"}
    templates = [*_strings(words["facts"]), *_strings(words["corrections"])]
    templates += _strings(words["questions"])
    unknown = {f for t in templates for f in _fields(t)} - BLOCK_FIELDS
    assert not unknown, f"templates name values the builder does not fill: {unknown}"
    conversations = block_cases.generate(19, 6)
    assert all(14 <= len(c.turns) <= 42 and c.queries for c in conversations)


def test_the_forgetting_words_are_well_formed() -> None:
    words = read_json(DATA / "forgetting_words.json")
    assert set(words) == {
        *("first", "last", "cities", "companies", "streets", "drinks", "foods", "hobbies"),
        *("conditions", "pets", "lookalikes"),
    }
    for name, pool in words.items():
        assert pool and all(isinstance(s, str) and s.strip() for s in _strings(pool)), name
        assert len(set(pool)) == len(pool), f"{name} repeats a value"
    assert len(words["first"]) >= 20  # a case draws up to 16 distinct first names
    assert all(word.startswith(pet) for pet, word in words["lookalikes"].items())
    cases = forgetting_cases.generate(11, 2, 2)
    assert len(cases) == 2 * len(forgetting_cases.FAMILIES) + 2 * len(forgetting_cases.ADVERSARIAL)
