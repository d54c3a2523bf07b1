"""The same operations on the proxy (``POST /_orma/forget``) and as MCP tools."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from mcp import Client

from orma_proxy import Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.mcp.server import build_server
from orma_proxy.server import create_app
from orma_proxy.server.auth import parse_keys
from tests.helpers.serving import serve

SECRET = "The alarm code is 80417."

pytestmark = pytest.mark.both_backends


@pytest.fixture
def proxy(config: OrmaConfig, embedder: OnnxEmbedder) -> Iterator[str]:
    keyed = config.model_copy(update={"api_keys": parse_keys("key-alice=alice;key-admin=*")})
    with Memory(config=keyed, embedder=embedder) as mem:
        for space in ("alice", "bob"):
            mem.add(SECRET, space=space)
            mem.add("My dentist is Dr. Rao in Kothrud.", space=space)
    with serve(create_app(keyed, embedder=embedder)) as served:
        yield f"{served.url}/_orma/forget"


def _post(url: str, body: dict[str, object], key: str | None = "key-alice") -> httpx.Response:
    headers = {} if key is None else {"authorization": f"Bearer {key}"}
    return httpx.post(url, json=body, headers=headers, timeout=60)


def test_the_proxy_forgets_for_the_key_s_own_space_only(proxy: str, config: OrmaConfig) -> None:
    purge = {"operation": "purge", "query": "alarm code"}
    assert _post(proxy, purge, key=None).status_code == 401
    assert _post(proxy, {**purge, "space": "bob"}).status_code == 403

    dry = _post(proxy, {**purge, "dry_run": True})
    assert dry.status_code == 200, dry.text
    assert (dry.json()["space"], dry.json()["preview"]) == ("alice", [SECRET])
    done = _post(proxy, purge).json()
    # One episode erased (its passage goes with it): a purge counts episodes.
    assert (done["count"], done["compacted"], done["dry_run"]) == (1, True, False)
    assert len(done["affected"]["episodes"]) == 1 and done["affected"]["sentences"]
    for dry_run in (True, False):  # nothing left to match: a 404 naming the closest lines
        missed = _post(proxy, {**purge, "dry_run": dry_run})
        assert missed.status_code == 404, missed.text
        assert missed.json()["error"]["code"] == "nothing_matched"
        assert missed.json()["error"]["candidates"] == ["My dentist is Dr. Rao in Kothrud."]
    bobs = _post(proxy, {**purge, "space": "bob", "dry_run": True}, key="key-admin").json()
    assert bobs["preview"] == [SECRET]  # another space keeps its own

    fixed = _post(proxy, {"operation": "supersede", "old": "Dr. Rao", "new": "Dr. Shah"})
    assert fixed.json()["affected"]["sentences"] and fixed.json()["episode_id"]
    released = _post(proxy, {"operation": "release", "query": "dentist"}).json()
    back = _post(proxy, {"operation": "unrelease", "release_id": released["release_id"]})
    assert back.json()["affected"] == released["affected"]
    for bad, status, message in (
        ({"operation": "vanish"}, 400, "bad /_orma/forget request"),
        ({"operation": "release"}, 400, "release needs 'query'"),
        ({"operation": "supersede", "old": "Mumbai", "new": "x"}, 404, "nothing in space 'alice'"),
        ({"operation": "release", "query": "my gym"}, 404, "nothing was released"),
    ):
        answer = _post(proxy, bad)
        assert answer.status_code == status and message in answer.json()["error"]["message"]


async def test_the_mcp_tools_release_and_purge(config: OrmaConfig, embedder: OnnxEmbedder) -> None:
    async with Client(build_server(config, embedder=embedder)) as client:
        await client.call_tool("orma_remember", {"text": SECRET})
        await client.call_tool("orma_remember", {"text": "Deploys go through the staging cluster."})
        dry = await client.call_tool("orma_purge", {"query": "alarm code", "dry_run": True})
        assert dry.structured_content is not None
        assert (dry.structured_content["count"], dry.structured_content["preview"]) == (1, [SECRET])
        gone = await client.call_tool("orma_purge", {"query": "alarm code"})
        assert gone.structured_content is not None and not gone.structured_content["dry_run"]
        hidden = await client.call_tool("orma_release", {"query": "staging deploys"})
        assert hidden.structured_content is not None
        assert hidden.structured_content["release_id"] == 1
        recall = await client.call_tool("orma_recall", {"query": "how do deploys work?"})
        text = "".join(getattr(c, "text", "") for c in recall.content)
        assert "staging" not in text and "80417" not in text
        # The release is undone by a tool the agent has, not by a CLI it may not run.
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "orma unrelease" not in (tools["orma_release"].description or "")
        back = await client.call_tool("orma_unrelease", {"release_id": 1})
        assert back.structured_content is not None, back.content
        assert back.structured_content["affected"] == hidden.structured_content["affected"]
        recall = await client.call_tool("orma_recall", {"query": "how do deploys work?"})
        assert "staging" in "".join(getattr(c, "text", "") for c in recall.content)
        again = await client.call_tool("orma_unrelease", {"release_id": 1})
        assert again.is_error  # undone already: never a second success
        # An argument of the wrong type is one plain line naming it, no pydantic report.
        wrong = await client.call_tool("orma_forget", {"state_id": "the editor fact"})
        said = "".join(getattr(c, "text", "") for c in wrong.content)
        assert wrong.is_error and said.startswith("orma_forget: state_id: "), said
        assert "'the editor fact'" in said and "http" not in said and "\n" not in said
        empty = await client.call_tool("orma_purge", {"query": " "})
        assert empty.is_error
        for tool in ("orma_purge", "orma_release"):  # nothing matched is an error, never a success
            for dry_run in (True, False):
                missed = await client.call_tool(tool, {"query": "alarm code", "dry_run": dry_run})
                text = "".join(getattr(c, "text", "") for c in missed.content)
                assert missed.is_error and "nothing was" in text, text


AMBIGUOUS = ("Theo Varga works at Ossory.", "Theo Lund works at Brack.")


def test_the_proxy_answers_409_with_the_people_a_first_name_could_mean(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    with Memory(config=config, embedder=embedder) as mem:
        for note in AMBIGUOUS:
            mem.add(note)
    with serve(create_app(config, embedder=embedder)) as served:
        url = f"{served.url}/_orma/forget"
        answer = _post(url, {"operation": "release", "query": "Theo's employer"}, key=None)
        assert answer.status_code == 409, answer.text
        error = answer.json()["error"]
        assert error["code"] == "ambiguous_description"
        assert error["candidates"] == ["Theo Varga", "Theo Lund"]
        exact = _post(url, {"operation": "release", "query": "Theo Lund's employer"}, key=None)
        assert exact.status_code == 200 and exact.json()["preview"] == [AMBIGUOUS[1]]


async def test_the_mcp_tools_name_the_candidates(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    async with Client(build_server(config, embedder=embedder)) as client:
        for note in AMBIGUOUS:
            await client.call_tool("orma_remember", {"text": note})
        answer = await client.call_tool("orma_purge", {"query": "Theo's employer"})
        text = "".join(getattr(c, "text", "") for c in answer.content)
        assert answer.is_error and "Theo Varga" in text and "Theo Lund" in text
