"""The extraction contract: the prompt, the JSON schema, and a forgiving parser.

The model sees the batch as numbered lines and answers one JSON object of
states, events and the user's name, each citing a line. Parsing accepts what
small models really return (code fences, prose around the object, ``"s3"``
for ``3``, a missing optional field); an answer that is not a JSON object with
``states`` or ``events`` is malformed and retried. An item that does not fit
is dropped with a reason, never guessed at.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from orma_proxy.context_window import estimate_tokens
from orma_proxy.errors import ExtractionError

_LINE_REF = re.compile(r"^\s*\[?\s*[sS]?\s*(\d+)\s*\]?\s*$")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def _line_number(value: object) -> int:
    if isinstance(value, bool):
        raise ValueError("a line number, not a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        m = _LINE_REF.match(value)
        if m:
            return int(m[1])
    raise ValueError(f"not a line number: {value!r}")


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"expected text, got {type(value).__name__}")


class RawState(BaseModel):
    """One current state as the model proposed it (unverified)."""

    model_config = ConfigDict(extra="ignore")

    line: int
    about: str = "user"
    attribute: str
    value: str
    condition: str = ""
    prohibited: bool = False
    ended: bool = False
    since: str = ""

    @field_validator("line", mode="before")
    @classmethod
    def _line(cls, value: object) -> int:
        return _line_number(value)

    @field_validator("about", "attribute", "value", "condition", "since", mode="before")
    @classmethod
    def _texts(cls, value: object) -> str:
        return _text(value)


class RawEvent(BaseModel):
    """One dated happening as the model proposed it (unverified)."""

    model_config = ConfigDict(extra="ignore")

    line: int
    what: str
    when: str = ""
    who: list[str] = Field(default_factory=list)

    @field_validator("line", mode="before")
    @classmethod
    def _line(cls, value: object) -> int:
        return _line_number(value)

    @field_validator("what", "when", mode="before")
    @classmethod
    def _texts(cls, value: object) -> str:
        return _text(value)

    @field_validator("who", mode="before")
    @classmethod
    def _people(cls, value: object) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            return [value] if value.strip() else []
        if isinstance(value, list):
            return [_text(v) for v in value if v is not None]
        raise ValueError("who must be a list of names")


class Extraction(BaseModel):
    """A parsed answer: valid items, plus the raw items that did not fit and why."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    user_name: str = ""
    states: list[RawState] = Field(default_factory=list)
    events: list[RawEvent] = Field(default_factory=list)
    malformed: list[tuple[Literal["state", "event"], dict[str, Any], str]] = Field(
        default_factory=list
    )


STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "line": {"type": "integer"},
        "about": {"type": "string"},
        "attribute": {"type": "string"},
        "value": {"type": "string"},
        "condition": {"type": "string"},
        "prohibited": {"type": "boolean"},
        "ended": {"type": "boolean"},
        "since": {"type": "string"},
    },
    "required": ["line", "about", "attribute", "value"],
}
EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "line": {"type": "integer"},
        "what": {"type": "string"},
        "when": {"type": "string"},
        "who": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["line", "what"],
}
EXTRACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "user_name": {"type": "string"},
        "states": {"type": "array", "items": STATE_SCHEMA},
        "events": {"type": "array", "items": EVENT_SCHEMA},
    },
    "required": ["states", "events"],
}

SYSTEM_PROMPT = """You extract long-term memory from a conversation log.
Each line is [s<number> <date> <speaker>] text. Cite lines by their number.
A speaker that is a name (not user, note, assistant...) said the line: its
"I" and "my" are that person, so its facts are about them, not the user.
Return one JSON object: {"user_name": "", "states": [...], "events": [...]}.
states: facts that are true now about someone, one per item:
  {"line": 3, "about": "user" or a person's name, "attribute": "home_city",
   "value": "Bangalore", "condition": "", "prohibited": false, "ended": false, "since": ""}
  - value: copy the words from the line.
  - condition: only for habits that hold in a situation ("sore throat" for
    "when I have a sore throat, I drink ginger tea"); otherwise "".
  - prohibited: true for rules like "never do X"; value is what must not be done.
  - ended: true when the line says a fact stopped being true.
  - since: copy the time words from the line ("last week"), never compute a date.
  - about: who the fact is about. "my sister Asha is allergic to nuts" is about Asha.
events: things that happened or will happen:
  {"line": 5, "what": "went trekking", "when": "last Saturday", "who": ["user"]}
  - when: copy the time words from the line exactly; never compute a date.
Only cite lines spoken by user, note, document, tool or a named person; assistant lines
are context.
If nothing is worth remembering, return {"user_name": "", "states": [], "events": []}."""


def user_prompt(numbered_lines: list[str]) -> str:
    return "Lines:\n" + "\n".join(numbered_lines) + "\n\nJSON:"


def line_room(window: int | None, answer_tokens: int) -> int | None:
    """Tokens one request's numbered lines may take in a ``window``-token context: what the
    instructions, the schema (sent as text in the plainer modes) and the answer leave."""
    if window is None:
        return None
    fixed = SYSTEM_PROMPT + json.dumps(EXTRACTION_SCHEMA) + user_prompt([])
    return max(window - estimate_tokens(fixed) - answer_tokens, 1)


def _json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` (fences and surrounding prose ignored)."""
    candidates = [m[1] for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        start = candidate.find("{")
        while start >= 0:
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                start = candidate.find("{", start + 1)
                continue
            if isinstance(value, dict):
                return value
            start = candidate.find("{", start + 1)
    raise ExtractionError(f"no JSON object in the answer: {text[:200]!r}")


def parse_extraction(text: str) -> Extraction:
    """Parse the model's answer; raises ``ExtractionError`` when it is no usable object."""
    data = _json_object(text)
    states_raw, events_raw = data.get("states"), data.get("events")
    if states_raw is None and events_raw is None:
        raise ExtractionError(f"the answer has neither 'states' nor 'events': {text[:200]!r}")
    result = Extraction(user_name=_safe_text(data.get("user_name")))
    sections: tuple[tuple[Literal["state", "event"], object, type[BaseModel]], ...] = (
        ("state", states_raw, RawState),
        ("event", events_raw, RawEvent),
    )
    for kind, raw_items, model in sections:
        if raw_items is None:
            continue
        if not isinstance(raw_items, list):
            raise ExtractionError(f"'{kind}s' is not a list: {str(raw_items)[:200]!r}")
        for raw in raw_items:
            if not isinstance(raw, dict):
                result.malformed.append((kind, {"item": raw}, "not a JSON object"))
                continue
            try:
                item = model.model_validate(raw)
            except ValidationError as exc:
                reason = "; ".join(
                    f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()
                )
                result.malformed.append((kind, raw, f"malformed item ({reason})"))
                continue
            if isinstance(item, RawState):
                result.states.append(item)
            else:
                assert isinstance(item, RawEvent)
                result.events.append(item)
    return result


def _where(loc: tuple[int | str, ...]) -> str:
    return ".".join(map(str, loc))


def _safe_text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""
