"""The recorded-answers LLM of ``bench.sleep``: a tiny OpenAI-compatible server on loopback.

Each conversation of ``bench/data/sleep.jsonl`` has the answers a 3B model gives
to sleep's extraction prompt, written once (``Answer``). The request's
``model`` names the conversation (``recorded:<name>``); its n-th request gets
its n-th answer (the last one repeats, as a model at temperature 0 would).

An answer cites lines the way it was written: ``"line": "@moved to Pune"`` is
the number of the first line of *this* prompt said by the user holding those
words (``"@@..."``: by anyone, the assistant too); a retry on half the
episodes numbers them anew, and an item citing words the prompt
does not hold is left out, as a model would not mention them; an int is kept
as written (a wrong citation), a missing ``line`` stays missing. A broken
answer is sent as a model sends one: cut off (``cut``), as a Python literal
(``python``) or as prose (``prose``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bench.loopback import serving
from bench.sleep_labels import Answer

PREFIX = "recorded:"
_LINE = re.compile(r"^\[s(?P<n>\d+) \S+ (?P<role>\w+)\] (?P<text>.*)$")


def numbered(prompt: str) -> dict[int, tuple[str, str]]:
    """The prompt's lines by number: (speaker, text)."""
    found = {}
    for raw in prompt.splitlines():
        m = _LINE.match(raw.strip())
        if m:
            found[int(m["n"])] = (m["role"], m["text"])
    return found


def _cite(item: dict[str, Any], lines: Mapping[int, tuple[str, str]]) -> dict[str, Any] | None:
    """``@words``: the first user line holding them; ``@@words``: the first line of anyone's."""
    ref = item.get("line")
    if not (isinstance(ref, str) and ref.startswith("@")):
        return item
    anyone = ref.startswith("@@")
    words = ref.lstrip("@").lower()
    for number, (role, text) in sorted(lines.items()):
        if (anyone or role != "assistant") and words in text.lower():
            return {**item, "line": number}
    return None


def render(answer: Answer, prompt: str) -> str:
    """The text the model sends for ``prompt``."""
    lines = numbered(prompt)
    payload: dict[str, Any] = {"user_name": answer.user_name} if answer.user_name else {}
    for kind, items in (("states", answer.states), ("events", answer.events)):
        payload[kind] = [c for c in (_cite(dict(i), lines) for i in items) if c is not None]
    if answer.broken == "prose":
        said = "; ".join(f"{s.get('attribute')}: {s.get('value')}" for s in payload["states"])
        return f"Sure! Here is what I found about the user: {said or 'nothing much'}."
    if answer.broken == "python":
        return repr(payload)
    text = json.dumps(payload, ensure_ascii=False)
    if answer.broken == "cut":
        return text[: max(1, len(text) * 2 // 3)]
    return text


def create_app(answers: Mapping[str, list[Answer]]) -> Starlette:
    asked: dict[str, int] = {}

    async def chat(request: Request) -> Response:
        body = json.loads(await request.body())
        name = str(body.get("model", "")).removeprefix(PREFIX)
        script = answers.get(name)
        if not script:
            return JSONResponse({"error": {"message": f"no recorded answers for {name!r}"}}, 404)
        n = asked.get(name, 0)
        asked[name] = n + 1
        prompt = str(body["messages"][-1]["content"])
        content = render(script[min(n, len(script) - 1)], prompt)
        message = {"role": "assistant", "content": content}
        return JSONResponse({"choices": [{"index": 0, "message": message}]})

    async def models(request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": f"{PREFIX}any"}]})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/models", models),
        ]
    )


@contextmanager
def recorded_llm(answers: Mapping[str, list[Answer]]) -> Iterator[str]:
    """Serve the recorded answers on a free loopback port (in a thread); yields the base URL."""
    with serving(create_app(answers), "recorded-answers") as url:
        yield url
