"""Reading a description: who, which kind of fact, which words, which time."""

from __future__ import annotations

from orma_proxy.forget.describe import Line, describe, full_names, naming


def line(text: str) -> Line:
    return Line(1, text, about_user=text.split()[0] in ("I", "My", "I'm"))


def test_a_person_and_a_kind_of_fact() -> None:
    d = describe("Farida's employer")
    assert d.names == ("Farida",) and d.groups == {"work"} and not d.values
    assert d.holds(line("Farida has a job at Orbitel."))
    assert d.holds(line("Farida got hired by Orbitel in May."))
    assert not d.holds(line("Farida loves kayaking."))  # her, another kind of fact
    assert not d.holds(line("Ravi works at Orbitel."))  # the kind, someone else


def test_a_name_is_a_whole_word() -> None:
    d = describe("where Ed lives")
    assert d.holds(line("Ed lives on Hill Road."))
    assert not d.holds(line("Edna lives on Hill Road."))
    assert not d.holds(line("Ted lives on Hill Road."))


def test_words_beyond_the_kind_must_all_be_there() -> None:
    d = describe("user does not drink kvass")
    assert d.user and d.groups == {"drink"}
    assert d.holds(line("I do not drink kvass any more."))
    assert not d.holds(line("I drink rooibos after lunch."))


def test_a_bare_word_matches_by_stem_not_by_substring() -> None:
    d = describe("owl")
    assert d.holds(line("An owl nests in our barn.")) and d.holds(line("Two owls hooted."))
    assert not d.holds(line("Bowls of soup for dinner."))


def test_time_selectors_and_the_user() -> None:
    assert describe("my previous address").when == "previous"
    assert describe("the flat before the current one").when == "previous"
    assert describe("Omar's current job").when == "current"
    d = describe("my ex Tobias")
    assert d.names == ("Tobias",) and not d.user and not d.groups


def test_identifiers_win_and_are_not_echoed() -> None:
    d = describe("the token ghp_Q2w3E4r5T6y7U8i9O0pA1sD2")
    assert len(d.identifiers) == 1
    assert "ghp_" not in d.summary()
    assert d.holds(line("My CI token is ghp_Q2w3E4r5T6y7U8i9O0pA1sD2."))


def test_a_compound_line_is_cut_between_kinds() -> None:
    d = describe("where Yusuf lives")
    text = "Yusuf loves mango lassi and lives in Dharwad."
    cuts = d.clause_cuts(text)
    assert [(text[a:b], hit) for a, b, hit in cuts] == [
        ("Yusuf loves mango lassi", False),
        ("and lives in Dharwad.", True),
    ]
    # A clause naming no kind of its own stays with the rest.
    assert len(describe("my diet").clause_cuts("I'm vegan and skip honey too.")) == 1


def test_full_names_find_two_people_behind_one_first_name() -> None:
    texts = ["Noor Haddad works at Velt.", "Noor Saleh works at Brio.", "Noor called."]
    assert full_names("Noor", texts) == ["Noor Haddad", "Noor Saleh"]
    assert full_names("Dan", ["Dan K - plumber", "Dan M - Freya's dad"]) == ["Dan K", "Dan M"]
    assert full_names("Ruiz", ["Ms Ruiz teaches", "Mr Ruiz coaches"]) == ["Ms Ruiz", "Mr Ruiz"]
    assert naming("forget Ruiz", "Ms Ruiz") == "forget Ms Ruiz"


def test_a_capitalised_value_is_a_word_not_a_name() -> None:
    d = describe("Coffee after dinner")
    assert not d.names and d.holds(line("I have coffee after dinner."))
    assert describe("Kvass habit").names == ("Kvass",)  # unknown: it may be a name
