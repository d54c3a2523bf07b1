"""bench.sleep's answer cache: a replay is the live run's answer, and asks the server nothing."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from bench.answer_cache import CacheStats, cached_upstream
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.scripted_upstream import Recorded, Script, build_upstream
from tests.helpers.serving import serve

BODY = {
    "model": "m",
    "messages": [{"role": "user", "content": "hi"}],
    "response_format": {"type": "json_object"},
}
OTHER = {**BODY, "response_format": {"type": "json_schema"}}
THIRD = {**BODY, "model": "third"}
ANSWER = '{"states": [{"about": "user", "attribute": "diet", "value": "vegan", "line": 1}]}'


def test_a_repeated_body_is_replayed_and_a_new_one_asked(tmp_path: Path) -> None:
    script, recorded, stats = Script(sleep_answer=ANSWER), Recorded(), CacheStats()
    with (
        serve(build_upstream(script, recorded)) as served,
        cached_upstream(served.url + "/v1", tmp_path, stats) as url,
    ):
        first = httpx.post(f"{url}/chat/completions", json=BODY, trust_env=False)
        again = httpx.post(f"{url}/chat/completions", json=BODY, trust_env=False)
        other = httpx.post(f"{url}/chat/completions", json={**BODY, "model": "n"}, trust_env=False)
        models = [httpx.get(f"{url}/models", trust_env=False) for _ in range(2)]
    assert first.status_code == again.status_code == other.status_code == 200
    assert again.content == first.content
    assert json.loads(first.content)["choices"][0]["message"]["content"] == ANSWER
    assert models[0].content == models[1].content
    paths = [r["path"] for r in recorded.requests]
    assert paths == ["/v1/chat/completions", "/v1/chat/completions", "/v1/models"]
    assert (stats.hits, stats.misses) == (2, 3)
    assert len(list(tmp_path.glob("*.json"))) == 3


def test_a_stored_answer_needs_no_server_and_only_real_answers_are_stored(
    tmp_path: Path,
) -> None:
    script, recorded = Script(sleep_answer=ANSWER, fail_status=503), Recorded()
    with (
        serve(build_upstream(script, recorded)) as served,
        cached_upstream(served.url + "/v1", tmp_path, CacheStats()) as url,
    ):
        failed = httpx.post(f"{url}/chat/completions", json=BODY, trust_env=False)
        script.fail_status = None
        answered = httpx.post(f"{url}/chat/completions", json=BODY, trust_env=False)
        script.fail_status = 500  # a refusal of this request, as llama-cpp-python gives one
        httpx.post(f"{url}/chat/completions", json=OTHER, trust_env=False)
    assert (failed.status_code, answered.status_code) == (503, 200)
    assert len(recorded.requests) == 3
    stats = CacheStats()
    with cached_upstream("http://127.0.0.1:9/v1", tmp_path, stats) as url:  # nothing listens
        replayed = httpx.post(f"{url}/chat/completions", json=BODY, trust_env=False)
        refused = httpx.post(f"{url}/chat/completions", json=OTHER, trust_env=False)
        unreachable = httpx.post(f"{url}/chat/completions", json=THIRD, trust_env=False)
    assert replayed.content == answered.content
    assert refused.status_code == 500  # the server's refusal, replayed as it was given
    assert unreachable.status_code == 502  # no answer: not stored, asked again next time
    assert (stats.hits, stats.misses, stats.not_stored) == (2, 1, 1)
    assert len(list(tmp_path.glob("*.json"))) == 2


async def test_sleep_through_a_replay_stores_what_the_live_run_stored(
    tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    """Orma's own requests are byte-identical from run to run, so the second run asks nothing."""
    answer = (
        '{"states": [{"about": "user", "attribute": "diet", "value": "vegetarian", '
        '"line": 1}], "events": []}'
    )
    script, recorded = Script(sleep_answer=answer), Recorded()
    facts = []
    with serve(build_upstream(script, recorded)) as served:
        for run in ("live", "replay"):
            stats = CacheStats()
            with cached_upstream(served.url + "/v1", tmp_path / "cache", stats) as url:
                config = OrmaConfig(
                    home=tmp_path / run, db_path=tmp_path / run / "m.db", upstream=url
                )
                async with AsyncMemory(config=config, embedder=embedder) as mem:
                    await mem.add("I have been vegetarian for years.", space="s", at=AT)
                    await mem.add("Good to know.", space="s", role="assistant", at=AT)
                    await mem.sleep("s", model="m")
                    facts.append([(f.attribute, f.value) for f in await mem.facts("s")])
            if run == "live":
                asked = len(recorded.requests)
                assert stats.misses == asked > 0
            else:
                assert (stats.hits, stats.misses) == (asked, 0)
    assert len(recorded.requests) == asked
    assert facts[0] == facts[1]
    assert ("diet", "vegetarian") in facts[0]


AT = "2026-10-21T10:00:00+05:30"
