"""The viz page's JSON API on a memory consolidated through the proxy and the scripted upstream."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app
from tests.helpers.postgres import fresh_database
from tests.helpers.rawdb import scalar
from tests.helpers.serving import serve
from tests.helpers.viz_data import PENDING_NOTE, Seeded, chat, seeded

pytestmark = [pytest.mark.slow, pytest.mark.both_backends]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def viz(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, embedder: OnnxEmbedder
) -> Iterator[Seeded]:
    """Shared by the tests that only read: one seeded memory on each backend."""
    with ExitStack() as stack:
        db = None
        if request.param == "postgres":
            db = stack.enter_context(fresh_database(request.getfixturevalue("pg_server")))
        yield stack.enter_context(seeded(tmp_path_factory.mktemp("viz"), embedder, db))


@pytest.fixture
def fresh(tmp_path: Path, embedder: OnnxEmbedder, config: OrmaConfig) -> Iterator[Seeded]:
    """For the tests that change memory (on the ``backend`` of ``config``)."""
    with seeded(tmp_path / "home", embedder, config.db_url) as memory:
        yield memory


def get(viz: Seeded, path: str, **params: Any) -> Any:
    answer = httpx.get(f"{viz.url}{path}", params=params, timeout=60)
    assert answer.status_code == 200, answer.text
    return answer.json()


def by_label(graph: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {node["label"]: node for node in graph["nodes"]}


def test_graph_draws_each_kind_with_the_entity_graph_as_edges(viz: Seeded) -> None:
    graph = get(viz, "/_orma/api/graph", space="alice")
    nodes = by_label(graph)
    kinds = {label: node["kind"] for label, node in nodes.items()}
    assert kinds["user · home city: Bangalore"] == "state"
    assert kinds["user · dentist: Dr. Rao in Kothrud"] == "state"
    assert kinds["FORBIDDEN: chain PowerShell commands with semicolons"] == "rule"
    assert kinds["user · drink: ginger tea with honey | when: sore throat"] == "conditional"
    assert kinds["2026-05-03: user, Miso adopted a cat named Miso"] == "event"
    assert {kinds[name] for name in ("user", "Dr. Rao", "Kothrud", "Miso")} == {"entity"}
    assert "user · home city: Pune" not in nodes  # closed: in the inspector's history only
    dentist = nodes["user · dentist: Dr. Rao in Kothrud"]["id"]
    assert dentist == f"state:{viz.state('dentist', 'Dr. Rao in Kothrud')}"
    edges = {(link["source"], link["target"]) for link in graph["links"]}
    for name in ("user", "Dr. Rao", "Kothrud"):
        assert (f"entity:{viz.ids[name]}", dentist) in edges
    drawn = {node["id"] for node in graph["nodes"]}
    assert all(a in drawn and b in drawn for a, b in edges)
    assert all(a.startswith("entity:") and not b.startswith("entity:") for a, b in edges)
    assert graph["total_nodes"] == graph["shown_nodes"] == len(graph["nodes"])
    assert graph["capped"] is False and graph["note"] is None
    assert all(node["activation"] > 0 and 0 <= node["pulse"] <= 1 for node in graph["nodes"])


def test_a_capped_graph_keeps_rules_and_the_most_active_and_says_so(viz: Seeded) -> None:
    whole = get(viz, "/_orma/api/graph", space="alice")
    capped = get(viz, "/_orma/api/graph", space="alice", limit=3)
    assert capped["shown_nodes"] == len(capped["nodes"]) <= 3
    assert capped["capped"] is True and capped["total_nodes"] == whole["total_nodes"]
    assert capped["note"] == (
        f"Showing the {capped['shown_nodes']} most active of {whole['total_nodes']} nodes "
        f"(rules first); the other {whole['total_nodes'] - capped['shown_nodes']} are left out."
    )
    assert capped["nodes"][0]["kind"] == "rule"
    bad = httpx.get(f"{viz.url}/_orma/api/graph", params={"space": "alice", "limit": "lots"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_request"


def test_the_inspector_cites_the_sentence_and_shows_the_history(viz: Seeded) -> None:
    bangalore = viz.state("home_city", "Bangalore")
    pune = viz.state("home_city", "Pune")
    detail = get(viz, f"/_orma/api/node/state:{bangalore}", space="alice")
    sentence = int(scalar(viz.db, "SELECT sentence_id FROM states WHERE id = ?", bangalore))
    said = float(
        scalar(
            viz.db,
            "SELECT e.said_at FROM sentences s JOIN episodes e ON e.id = s.episode_id "
            "WHERE s.id = ?",
            sentence,
        )
    )
    citation = detail["citation"]
    assert citation["label"] == f"[s{sentence}]"
    assert citation["text"] == "I moved to Bangalore last week."
    assert citation["role"] == "user"
    assert abs(_seconds(citation["said_at"]) - said) < 0.001
    assert detail["value"] == "Bangalore" and detail["active"] is True and detail["can_forget"]
    assert [s["id"] for s in detail["history"]["replaced"]] == [f"state:{pune}"]
    assert detail["history"]["replaced"][0]["end_reason"] == "superseded"
    assert detail["history"]["replaced_by"] == [] and detail["rehearsals"] == 1
    assert {n["label"] for n in detail["neighbours"]} >= {"user", "Bangalore"}

    old = get(viz, f"/_orma/api/node/state:{pune}", space="alice")
    assert old["active"] is False and old["can_forget"] is False
    assert [s["value"] for s in old["history"]["replaced_by"]] == ["Bangalore"]
    assert old["citation"]["text"] == "I live in Pune."

    event = get(viz, "/_orma/api/node/event:1", space="alice")
    assert (event["kind"], event["date"], event["value"]) == (
        "event", "2026-05-03", "adopted a cat named Miso"
    )  # fmt: skip
    assert event["citation"]["text"] == "I adopted a cat named Miso on 3 May 2026."
    hub = get(viz, f"/_orma/api/node/entity:{viz.ids['Dr. Rao']}", space="alice")
    assert hub["kind"] == "entity" and hub["label"] == "Dr. Rao"
    assert [n["label"] for n in hub["neighbours"]] == ["user · dentist: Dr. Rao in Kothrud"]


def _seconds(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def test_unknown_nodes_are_404_in_openai_shape(viz: Seeded) -> None:
    for node in ("state:99999", "entity:99999", "event:99999", "passage:1", "nonsense"):
        answer = httpx.get(f"{viz.url}/_orma/api/node/{node}", params={"space": "alice"})
        assert answer.status_code == 404, node
        assert answer.json()["error"]["code"] == "not_found"


def test_recall_preview_is_the_block_the_proxy_injects(fresh: Seeded) -> None:
    dentist = fresh.state("dentist", "Dr. Rao in Kothrud")
    query = "Who is my dentist?"
    answer = httpx.post(
        f"{fresh.url}/_orma/api/recall", json={"query": query, "space": "alice"}, timeout=60
    )
    assert answer.status_code == 200, answer.text
    preview = answer.json()
    assert preview["best"] == f"state:{dentist}"
    assert preview["matches"][0]["id"] == f"state:{dentist}"
    assert preview["activation"][f"state:{dentist}"] > 0  # reached from "Dr. Rao", "Kothrud"
    rule = fresh.rule("chain PowerShell commands with semicolons")
    assert {f"state:{rule}", f"state:{dentist}"} <= set(preview["in_block"])
    assert "[FORBIDDEN: chain PowerShell commands with semicolons]" in preview["block"]
    assert "[user.dentist: Dr. Rao in Kothrud]" in preview["block"]
    assert preview["tokens"] > 0

    chat(fresh.url, "alice", query)
    chats = [
        r for r in fresh.recorded.requests
        if r["path"] == "/v1/chat/completions" and not r["json"].get("response_format")
    ]  # fmt: skip
    system = chats[-1]["json"]["messages"][0]
    assert system["role"] == "system" and system["content"] == preview["block"]


def test_recall_preview_refuses_an_empty_query(viz: Seeded) -> None:
    for body in ({"query": "  "}, {"space": "alice"}, {"query": "x", "space": 3}):
        answer = httpx.post(f"{viz.url}/_orma/api/recall", json=body)
        assert answer.status_code == 400, body


def test_pending_lists_recent_episodes_and_what_waits_for_sleep(viz: Seeded) -> None:
    feed = get(viz, "/_orma/api/pending", space="alice")
    assert feed["pending"] == 1
    newest = feed["episodes"][0]
    assert newest["text"] == PENDING_NOTE and newest["pending"] is True
    assert [e["pending"] for e in feed["episodes"][1:]] == [False] * (len(feed["episodes"]) - 1)
    assert [e["role"] for e in feed["episodes"][1:5]] == ["assistant", "user", "assistant", "user"]
    assert feed["sleep_running"] is True
    assert feed["last_batch"]["status"] == "applied" and feed["last_batch"]["extractor"] == "llm"
    assert feed["version"] == get(viz, "/_orma/api/graph", space="alice")["version"]


def test_spaces_lists_every_space_with_its_size(viz: Seeded) -> None:
    listed = get(viz, "/_orma/api/spaces")
    assert [s["name"] for s in listed["spaces"]] == ["alice", "bob"]
    alice = listed["spaces"][0]
    assert alice["states"] == 4 and alice["events"] == 1 and alice["episodes"] == 5
    assert listed["default"] == "default"


def test_space_b_never_sees_space_a(viz: Seeded) -> None:
    bob = get(viz, "/_orma/api/graph", space="bob")
    labels = {node["label"] for node in bob["nodes"]}
    assert labels == {"user · employer: Zerodha", "user", "Zerodha"}
    alice_ids = {node["id"] for node in get(viz, "/_orma/api/graph", space="alice")["nodes"]}
    assert not alice_ids & {node["id"] for node in bob["nodes"]}
    for node in alice_ids:
        answer = httpx.get(f"{viz.url}/_orma/api/node/{node}", params={"space": "bob"})
        assert answer.status_code == 404, node
    preview = httpx.post(
        f"{viz.url}/_orma/api/recall", json={"query": "Who is my dentist?", "space": "bob"}
    ).json()
    assert "Rao" not in preview["block"] and preview["best"] in (None, *bob_ids(bob))
    assert not set(preview["activation"]) & alice_ids
    feed = get(viz, "/_orma/api/pending", space="bob")
    assert {e["text"] for e in feed["episodes"]} == {"I work at Zerodha.", "Hello there!"}


def bob_ids(graph: dict[str, Any]) -> list[str]:
    return [node["id"] for node in graph["nodes"]]


def test_with_api_keys_every_endpoint_needs_a_key_for_its_own_space(
    viz: Seeded, embedder: OnnxEmbedder
) -> None:
    config = viz.config.model_copy(update={"api_keys": {"sk-alice": ["alice"]}})
    with serve(create_app(config, embedder=embedder)) as served:
        url = served.url
        calls = [
            ("GET", "/_orma/api/spaces", None),
            ("GET", "/_orma/api/graph?space=alice", None),
            ("GET", "/_orma/api/node/entity:1?space=alice", None),
            ("GET", "/_orma/api/pending?space=alice", None),
            ("POST", "/_orma/api/recall", {"query": "dentist", "space": "alice"}),
            ("POST", "/_orma/api/state/1/forget?space=alice", None),
        ]
        for method, path, body in calls:
            answer = httpx.request(method, url + path, json=body)
            assert answer.status_code == 401, path
            assert answer.json()["error"]["code"] == "invalid_api_key"
        key = {"authorization": "Bearer sk-alice"}
        for method, path, body in calls[:5]:
            bob = path.replace("alice", "bob")
            assert httpx.request(method, url + bob, json=_bob(body), headers=key).status_code == (
                200 if path.startswith("/_orma/api/spaces") else 403
            ), bob
            assert httpx.request(method, url + path, json=body, headers=key).status_code == 200
        listed = httpx.get(f"{url}/_orma/api/spaces", headers=key).json()
        assert [s["name"] for s in listed["spaces"]] == ["alice"] and listed["default"] == "alice"
        assert httpx.get(f"{url}/_orma/api/graph", headers=key).json()["space"] == "alice"
        # The page and its scripts hold no memory: they load without a key, like a web UI.
        page = httpx.get(f"{url}/_orma/viz")
        assert page.status_code == 200 and "<title>Orma · memory</title>" in page.text
        script = httpx.get(f"{url}/_orma/viz/static/viz.js")
        assert script.status_code == 200 and "window.ormaViz" in script.text


def _bob(body: dict[str, str] | None) -> dict[str, str] | None:
    return None if body is None else {**body, "space": "bob"}


def test_forget_closes_a_state_and_the_graph_follows(fresh: Seeded, embedder: OnnxEmbedder) -> None:
    dentist = fresh.state("dentist", "Dr. Rao in Kothrud")
    before = get(fresh, "/_orma/api/graph", space="alice")
    answer = httpx.post(f"{fresh.url}/_orma/api/state/{dentist}/forget", params={"space": "alice"})
    assert answer.status_code == 200, answer.text
    closed = answer.json()
    assert closed["active"] is False and closed["end_reason"] == "forgotten"
    assert closed["can_forget"] is False
    after = get(fresh, "/_orma/api/graph", space="alice")
    assert after["version"] != before["version"]
    assert f"state:{dentist}" not in {node["id"] for node in after["nodes"]}
    assert "Dr. Rao" not in {node["label"] for node in after["nodes"]}  # nothing left linked
    again = httpx.post(f"{fresh.url}/_orma/api/state/{dentist}/forget", params={"space": "alice"})
    assert again.status_code == 400 and "already closed" in again.json()["error"]["message"]
    other = httpx.post(f"{fresh.url}/_orma/api/state/{dentist}/forget", params={"space": "bob"})
    assert other.status_code == 400 and "no state" in other.json()["error"]["message"]

    async def facts() -> list[str]:
        async with AsyncMemory(config=fresh.config, embedder=embedder) as mem:
            return [f.text for f in await mem.facts("alice")]

    assert "user · dentist: Dr. Rao in Kothrud" not in asyncio.run(facts())
