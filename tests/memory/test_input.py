"""Bad input is refused with a message, before anything is written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import InputError, OrmaError, UnreadableFileError

pytestmark = pytest.mark.both_backends


@pytest.mark.parametrize("text", ["", " ", "\n\t  \r\n", "\u3000"])
async def test_empty_or_blank_text_is_a_value_error_with_a_message(
    amem: AsyncMemory, text: str
) -> None:
    with pytest.raises(ValueError, match="text is empty") as caught:
        await amem.add(text)
    assert isinstance(caught.value, InputError) and isinstance(caught.value, OrmaError)
    with pytest.raises(InputError, match="query is empty"):
        await amem.search(text)
    assert (await amem.stats()).episodes == 0


async def test_lone_surrogates_are_refused_clearly_wherever_they_appear(amem: AsyncMemory) -> None:
    broken = "half an emoji: \ud83d"
    with pytest.raises(InputError, match="text is not valid Unicode"):
        await amem.add(broken)
    with pytest.raises(InputError, match="query is not valid Unicode"):
        await amem.search(broken)
    with pytest.raises(InputError, match="space is not valid Unicode"):
        await amem.add("Fine text.", space="user\udc80")
    with pytest.raises(InputError, match="metadata cannot be stored"):
        await amem.add("Fine text.", metadata={"note": broken})
    assert (await amem.stats()).episodes == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"text": 42}, "text must be a string"),
        ({"text": "ok", "space": ""}, "space must not be empty"),
        ({"text": "ok", "space": None}, "space must be a string"),
        ({"text": "ok", "space": "a\x00b"}, "space must not contain control characters"),
        ({"text": "ok", "space": "a\u2028b"}, "space must not contain control characters"),
        ({"text": "ok", "space": "x" * 201}, "space names are at most 200 characters"),
        ({"text": "ok", "role": "system"}, "role must be one of"),
        ({"text": "ok", "metadata": {"when": object()}}, "metadata cannot be stored"),
        ({"text": "ok", "metadata": {"x": float("nan")}}, "metadata cannot be stored"),
        ({"text": "ok", "metadata": ["not", "a", "dict"]}, "metadata must be a dict"),
    ],
)
async def test_other_bad_arguments_are_input_errors(
    amem: AsyncMemory, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        await amem.add(**kwargs)  # type: ignore[arg-type]
    assert (await amem.stats()).episodes == 0


async def test_search_needs_a_positive_k(amem: AsyncMemory) -> None:
    with pytest.raises(InputError, match="k must be at least 1"):
        await amem.search("anything", k=0)


async def test_observe_takes_only_conversation_roles(amem: AsyncMemory) -> None:
    await amem.observe("user", "I moved to Pune.")
    with pytest.raises(InputError, match="user, assistant or tool"):
        await amem.observe("note", "Not a turn.")


async def test_a_text_file_is_stored_with_its_path_as_source(
    amem: AsyncMemory, tmp_path: Path
) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Trip\n\nThe hotel is on Marine Drive.\n", "utf-8")
    [episode_id] = await amem.add_file(path)
    found = await amem.search("hotel Marine Drive")
    assert found.passages[0].episode_id == episode_id
    assert found.passages[0].role == "document"


@pytest.mark.parametrize(
    "content",
    [b"GIF89a\x01\x00\x01\x00\x00\xff\x00,", "na\xefve caf\xe9".encode("latin-1"), b"\xc3\x28"],
)
async def test_binary_and_non_utf8_files_are_unreadable(
    amem: AsyncMemory, tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "upload.txt"
    path.write_bytes(content)
    with pytest.raises(UnreadableFileError, match=str(path)):
        await amem.add_file(path)
    assert (await amem.stats()).episodes == 0


async def test_a_file_name_that_is_not_utf8_still_works(amem: AsyncMemory, tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.md")  # Latin-1 bytes: Python holds them as a lone surrogate
    path = tmp_path / name
    path.write_text("The espresso machine is broken.", "utf-8")
    await amem.add_file(path)
    found = await amem.search("espresso machine")
    assert [p.text for p in found.passages] == ["The espresso machine is broken."]
