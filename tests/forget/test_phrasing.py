"""Issue 28: forgetting as other people phrase it, and never "done" when nothing was done.

Each test is one of the issue's numbered kinds of failure, with its examples:
anchors a line must hold and evidence that only ranks, "everything about"
someone, a key's leading part, kinds no word list has (by meaning), correction
chains and the scope slips a new user found.
"""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import AmbiguousDescriptionError, NothingMatchedError
from tests.helpers.life import exported, shown

pytestmark = pytest.mark.both_backends

OTHERS = (
    "Lorenzo grows chillies on his balcony.",
    "The offsite is booked for the second week of March.",
    "Wanjiru reads a thriller every night.",
    "The car needs new wiper blades.",
    "Haruki teaches pottery on Saturdays.",
)


async def _store(mem: AsyncMemory, *notes: str) -> None:
    for note in (*OTHERS[:2], *notes, *OTHERS[2:]):
        await mem.add(note)
    await mem.flush()


async def _shown(mem: AsyncMemory, query: str) -> str:
    return "\n".join(await shown(mem, query)).lower()


# --- 1. nothing matched is an error, naming the closest lines ------------------------------


@pytest.mark.parametrize("op", ["release", "purge", "supersede"])
async def test_nothing_matched_is_an_error_with_the_closest_lines(
    amem: AsyncMemory, op: str
) -> None:
    await _store(amem, "My locker code is 4417zeta.", "Priya loves sushi.")
    before = await exported(amem)
    for dry_run in (True, False):
        with pytest.raises(NothingMatchedError) as caught:
            if op == "supersede":
                await amem.supersede("the passport scan I uploaded", "x", dry_run=dry_run)
            elif op == "release":
                await amem.release("the passport scan I uploaded", dry_run=dry_run)
            else:
                await amem.purge("the passport scan I uploaded", dry_run=dry_run)
        assert "nothing was" in str(caught.value)
        assert "My locker code is 4417zeta." in caught.value.candidates
    assert await exported(amem) == before
    assert await amem.audit() == []
    assert "4417zeta" in await _shown(amem, "locker code")


# --- 2. anchors must be there; the other words rank -------------------------------------


@pytest.mark.parametrize(
    ("op", "about", "line", "new"),
    [
        (
            "purge",
            "the cabin wifi password hunter2-blue we set up",
            "Cabin wifi: hunter2-blue.",
            "",
        ),
        ("release", "Priya sushi food preferences", "Priya loves sushi.", ""),
        (
            "release",
            "that novel The Overstory I was reading",
            "Finished reading The Overstory last week.",
            "",
        ),
        (
            "supersede",
            "Arjun editor preference",
            "Arjun codes in Vim every day.",
            "Arjun uses Helix now.",
        ),
    ],
)
async def test_extra_words_rank_the_anchor_s_lines_they_are_not_a_checklist(
    amem: AsyncMemory, op: str, about: str, line: str, new: str
) -> None:
    kept = ("Priya works at Lark Freight.", "Arjun lives in Pune.", "Arjun's sister is Maya.")
    await _store(amem, line, *kept)
    if op == "supersede":
        result = await amem.supersede(about, new)
    elif op == "release":
        result = await amem.release(about)
    else:
        result = await amem.purge(about)
    assert result.count
    text = await _shown(amem, line)
    assert line.lower() not in text
    for other in kept:
        assert other.lower() in await _shown(amem, other)


# --- 3. everything about someone ------------------------------------------------------------

FARAH = ("Farah works at Kestrel Bank.", "Farah lives in Leeds.", "Farah hates cilantro.")


@pytest.mark.parametrize(
    "about",
    [
        "what you know of Farah",
        "Farah personal info",
        "Farah profile",
        "everything about Farah",
        "anything on Farah",
        "Farah's full profile",
    ],
)
async def test_everything_about_someone_reaches_all_their_lines_and_no_one_else_s(
    amem: AsyncMemory, about: str
) -> None:
    await _store(amem, *FARAH, "Farid works at Kestrel Bank too.")
    await amem.sleep()
    result = await amem.release(about)
    assert sorted(result.preview) == sorted(FARAH)
    text = await _shown(amem, "Who works at Kestrel Bank, and where does Farah live?")
    assert "farah" not in text and "farid works at kestrel bank" in text


@pytest.mark.parametrize("about", ["wipe Thomas' profile", "stop using what you know about Thomas"])
async def test_an_owner_ending_in_s_and_a_stop_using_name_the_person(
    amem: AsyncMemory, about: str
) -> None:
    thomas = ("Thomas works at Kestrel Bank.", "Thomas lives in Leeds.")
    await _store(amem, *thomas, "Farid works at Kestrel Bank too.")
    result = await amem.release(about)
    assert sorted(result.preview) == sorted(thomas)
    text = await _shown(amem, "Who works at Kestrel Bank, and where does Thomas live?")
    assert "thomas" not in text and "farid works at kestrel bank" in text


async def test_a_day_said_as_an_ordinal_is_the_day_s_number(amem: AsyncMemory) -> None:
    """ "On the 14th" is no code to look for: the line says "14 May"."""
    dentist = "Dentist appointment 14 May at 10am."
    await _store(amem, dentist, "Haircut on 21 May.")
    result = await amem.purge("the dentist appointment on the 14th", dry_run=True)
    assert result.preview == (dentist,)


async def test_a_title_is_part_of_the_name_not_a_kind_of_fact(amem: AsyncMemory) -> None:
    okonkwo = ("Dr Okonkwo's clinic is on Rua Augusta.", "Okonkwo plays chess on Sundays.")
    await _store(amem, *okonkwo, "The dentist is on Rua do Ouro.")
    result = await amem.release("all you have on Dr Okonkwo")
    assert sorted(result.preview) == sorted(okonkwo)


@pytest.mark.parametrize(
    ("about", "lines"),
    [
        ("forget Tariq", ("Tariq B - electrician, fixed the lights", "Tariq S - Freya's dad")),
        ("forget Moreau", ("Ms Moreau - Leo's teacher", "Mr Moreau - Leo's swim coach")),
        ("forget Salma", ("Salma from choir moves to Oslo", "Salma (Omid's sister) is a nurse")),
    ],
)  # fmt: skip
async def test_two_people_of_one_name_are_asked_about(
    amem: AsyncMemory, about: str, lines: tuple[str, str]
) -> None:
    await _store(amem, *lines)
    before = await exported(amem)
    with pytest.raises(AmbiguousDescriptionError) as asked:
        await amem.release(about)
    assert len(asked.value.candidates) == 2
    assert await exported(amem) == before


async def test_one_person_called_alike_in_every_line_is_released(amem: AsyncMemory) -> None:
    lindqvist = ("Mrs Lindqvist's number is 07700 900412.", "Mrs Lindqvist feeds the fish.")
    await _store(amem, *lindqvist)
    assert sorted((await amem.release("forget Lindqvist")).preview) == sorted(lindqvist)


@pytest.mark.parametrize(
    ("about", "role_line", "person"),
    [
        ("remove the roofer", "Bartek the roofer is booked for Thursday.", "Bartek"),
        ("forget my bookkeeper", "Anselm, my bookkeeper, files by January.", "Anselm"),
        ("forget Maya's piano teacher", "Mr Oduya is Maya's piano teacher.", "Mr Oduya"),
        ("forget the gardener", "Our gardener is Lotte, she comes on Fridays.", "Lotte"),
    ],
)
async def test_a_role_reaches_the_one_person_a_line_calls_by_it(
    amem: AsyncMemory, about: str, role_line: str, person: str
) -> None:
    theirs = (role_line, f"{person} charged 400 last year.", f"{person} is away in May.")
    await _store(amem, *theirs, "Wes the electrician charged 300.")
    result = await amem.release(about)
    assert sorted(result.preview) == sorted(theirs)
    text = await _shown(amem, f"Who charged what, is {person} away?")
    assert person.lower() not in text and "wes the electrician" in text


async def test_a_role_two_people_are_called_by_or_kin_reach_no_one_else(
    amem: AsyncMemory,
) -> None:
    await _store(
        amem,
        "Bartek the roofer fixed the gutter.",
        "Anton the roofer fixed the chimney.",
        "Bartek plays chess.",
        "Ines's son is Florence.",
        "Ines flew to Florence.",
    )
    roofers = await amem.release("the roofer", dry_run=True)
    assert "Bartek plays chess." not in roofers.preview
    son = await amem.release("Ines's son", dry_run=True)
    assert son.preview == ("Ines's son is Florence.",)


# --- 4. a key's leading part ---------------------------------------------------------------


async def test_a_leading_part_of_a_key_reaches_the_key(amem: AsyncMemory) -> None:
    await _store(amem, "Stripe key: sk-live-9f3k2xq81-prod", "The sk-live sandbox is free.")
    dry = await amem.purge("the key sk-live-9f3k2", dry_run=True)
    assert dry.preview == ("Stripe key: sk-live-9f3k2xq81-prod",)
    await amem.purge("the key sk-live-9f3k2")
    assert "9f3k2" not in await _shown(amem, "Stripe key")
    with pytest.raises(NothingMatchedError):
        await amem.purge("the key sk-liv")  # too short a part to name a key: nothing else goes


@pytest.mark.parametrize(
    ("about", "meant", "sibling"),
    [
        # a reference's letters and the start of its digits: its code, not a phone number
        ("policy HH-20931-77", "Home policy HH-20931-7742 renews in May.",
         "Car policy HH-20931-1180 renews in June."),
        # the digits a code starts with
        ("loan ref 14128890", "Student loan ref 1412889025B is with the council.",
         "Car loan ref 1412771130C is with the bank."),
    ],
)  # fmt: skip
async def test_a_leading_part_of_a_reference_reaches_only_it(
    amem: AsyncMemory, about: str, meant: str, sibling: str
) -> None:
    await _store(amem, meant, sibling)
    assert (await amem.purge(about, dry_run=True)).preview == (meant,)
    await amem.purge(about)
    text = await _shown(amem, "policy loan ref renews")
    assert meant.lower() not in text and sibling.lower() in text


# --- 5. kinds outside the word list: by meaning, clear winners only ------------------------


async def test_a_kind_no_word_list_has_is_found_by_meaning(amem: AsyncMemory) -> None:
    omar = ("Omar plays squash twice a week.", "Omar lives in Leeds.", "Omar's sister is Dana.")
    await _store(amem, *omar)
    result = await amem.supersede("Omar's sport", "Omar switched to badminton.")
    assert result.preview == (omar[0],)
    text = await _shown(amem, "What does Omar play, where does he live?")
    assert "squash" not in text and "badminton" in text and "leeds" in text


@pytest.mark.parametrize(
    ("secret", "beside", "about"),
    [
        (
            "xbox live: kestrel_77 / pw Falcon!19",
            "new xbox controller on order",
            "my console login",
        ),
        (
            "eduroam pw: Vireo-2231-x",
            "campus wifi is slow in the library",
            "the uni network password",
        ),
        ("pc bios pw Quartz77!", "pc fan is noisy", "my computer password"),
    ],
)
async def test_of_the_lines_by_meaning_the_kind_named_is_meant(
    amem: AsyncMemory, secret: str, beside: str, about: str
) -> None:
    """A password asked for, no word of it in any line: the one line holding a password."""
    await _store(amem, secret, beside)
    assert (await amem.purge(about, dry_run=True)).preview == (secret,)
    await amem.purge(about)
    text = await _shown(amem, beside)
    assert secret.split()[-1].lower() not in text and beside.lower() in text


async def test_close_candidates_by_meaning_are_asked_about(amem: AsyncMemory) -> None:
    # two lines as near as each other: "oolong" / "rooibos" was such a pair for the hand-set
    # margins, but the fitted choice takes the oolong line (the model puts it nearer "beverage")
    await _store(amem, "Omar drinks green tea in the morning.", "Omar drinks mint tea at night.")
    with pytest.raises(AmbiguousDescriptionError) as caught:
        await amem.supersede("Omar's beverage routine", "Omar quit tea.")
    assert len(caught.value.candidates) >= 2
    assert "green tea" in await _shown(amem, "What does Omar drink?")


# --- 6. correction chains ------------------------------------------------------------------


async def test_five_corrections_in_a_row_leave_only_the_last(amem: AsyncMemory) -> None:
    await _store(amem, "Tanvi's favourite colour is teal.", "Tanvi lives in Kochi.")
    colours = ("amber", "violet", "crimson", "ochre", "indigo")
    for colour in colours:
        await amem.supersede("Tanvi's favourite colour", f"Tanvi switched to {colour}.")
    text = await _shown(amem, "What is Tanvi's favourite colour?")
    assert "indigo" in text and "kochi" in await _shown(amem, "Where does Tanvi live?")
    for gone in ("teal", *colours[:-1]):
        assert gone not in text, gone


# --- 7. scope slips ------------------------------------------------------------------------


async def test_meera_s_employer_leaves_the_user_s_sister_and_names_what_it_closes(
    amem: AsyncMemory,
) -> None:
    await _store(amem, "My sister Meera works at Infosys.")
    await amem.sleep()
    dry = await amem.supersede("Meera's employer", "Meera is at Zoho as of 2025.", dry_run=True)
    assert dry.facts and all(fact.startswith("Meera") for fact in dry.facts), dry.facts
    assert len(dry.facts) == len(dry.affected.states)
    await amem.supersede("Meera's employer", "Meera is at Zoho as of 2025.")
    facts = {(s.entity, s.attribute): s.value for s in await amem.facts()}
    assert facts.get(("user", "sister")) == "Meera"
    assert facts.get(("Meera", "employer")) == "Zoho"


async def test_my_diet_is_not_what_i_prefer_to_code_in(amem: AsyncMemory) -> None:
    await _store(amem, "I prefer Python over Go for scripting.", "I am vegetarian.")
    await amem.sleep()
    dry = await amem.release("my diet", dry_run=True)
    assert dry.preview == ("I am vegetarian.",)
    assert not any("Python" in fact for fact in dry.facts)


async def test_a_correction_s_value_is_the_phrase_that_answers_the_slot(
    amem: AsyncMemory,
) -> None:
    await _store(amem, "I live in Koramangala.")
    await amem.sleep()
    await amem.supersede("my home city", "I live in Whitefield, Bangalore now.")
    values = {s.attribute: s.value for s in await amem.facts() if s.entity == "user"}
    assert values.get("home_city") == "Whitefield, Bangalore"
