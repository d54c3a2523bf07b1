"""Fuzz the proxy's HTTP surface: a real ``orma proxy`` process, hostile but ordinary input.

``python -m bench.fuzz [--requests 3000] [--seed 15] [--seconds 900]`` starts
``bench.upstream`` (every answer it makes is marked) and ``orma proxy`` in front
of it with API keys on, each its own process on loopback, then sends seeded
random requests: the chat routes, Ollama's ``/api/chat``, ``/_orma/*`` and
passthrough paths, with malformed JSON, wrong types, odd Unicode (lone
surrogates, NUL, RTL marks, non-Latin names), deep nesting, huge numbers, odd
paths and headers, with and without valid keys. Every 100 requests
``/health`` must answer 200.

It fails (exit 1) on any 5xx the proxy made itself (a 5xx without the
upstream's mark), any dropped connection, any request that hangs past its
timeout, or a failed health check; the first few of each are printed with the
request that caused them, so a failure can be replayed with the same seed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.processes import child, listening_socket, wait_until_up
from bench.upstream import MARK_HEADER

KEYS = {"fuzz-alice": "alice,张三", "fuzz-admin": "*"}
ADMIN = "fuzz-admin"
HEALTH_EVERY = 100
REQUEST_TIMEOUT_SECONDS = 60.0
WORKERS = 4
SHOWN = 5

ROUTES = [
    ("POST", "/v1/chat/completions"),
    ("POST", "/chat/completions"),
    ("POST", "/api/chat"),
    ("POST", "/_orma/forget"),
    ("POST", "/_orma/api/recall"),
    ("GET", "/_orma/last"),
    ("GET", "/_orma/api/graph"),
    ("GET", "/_orma/api/spaces"),
    ("GET", "/_orma/api/pending"),
    ("GET", "/_orma/api/node/state:1"),
    ("POST", "/_orma/api/state/1/forget"),
    ("GET", "/_orma/viz"),
    ("GET", "/health"),
    ("GET", "/v1/models"),
    ("GET", "/props"),
    ("GET", "/slots"),
    ("GET", "/"),
    ("GET", "/anything/else"),
    ("POST", "/v1/completions"),
]
# The routes that matter most get most of the requests.
CHATS = ["/v1/chat/completions", "/chat/completions", "/api/chat"]
CHAT_ROUTES = set(CHATS)
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]
HUGE = 99999999999999999999999
ODD_TEXT = [
    "", " ", "\x00", "a\x00b", "\ud800", "x\udfff y", "张三", "Ω", "🙂", "\u202eevil",
    "e\u0301", "a\u2028b", "\ufeffbom", 'NEAR(a b) AND "x', "*", "AND OR NOT", "^x", "x" * 300,
    "../../etc/passwd", "%00", "<script>alert(1)</script>", "'; DROP TABLE episodes; --",
    "I live in Pune and my dentist is Dr. Rao.", "Where do I live?", "\t\n\r", "ﬀ Ǆ ß",
]  # fmt: skip
ODD_VALUES: list[object] = [
    None, True, False, 0, -1, 1.5, HUGE, -HUGE, 1e308, [], {}, [None], {"a": None},
    ["x", 1], 2**63, 2**63 - 1, -(2**63) - 1,
]  # fmt: skip
RAW_NUMBERS = ["1e400", "-1e400", "NaN", "Infinity", "1" * 5000, "0.1e-400"]
SEGMENTS = [
    "state:99999999999999999999999", "event:-1", "entity:%C2%B2", "%F0%9F%99%82", "%ff%fe",
    "..", ".", "%2e%2e", "%2F", "a%00b", "x" * 2000, "99999999999999999999999", "-1", "0",
]  # fmt: skip


@dataclass(frozen=True)
class Probe:
    method: str
    path: str  # as sent on the wire: ASCII, maybe percent-encoded
    headers: list[tuple[bytes, bytes]]
    body: bytes | None

    def describe(self) -> str:
        body = (self.body or b"")[:160]
        return f"{self.method} {self.path[:160]} headers={self.headers!r} body={body!r}"


@dataclass
class Tally:
    statuses: Counter[int] = field(default_factory=Counter)
    orma_5xx: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    hung: list[str] = field(default_factory=list)
    client_refused: int = 0
    health_ok: int = 0
    health_failed: list[str] = field(default_factory=list)

    @property
    def failures(self) -> int:
        return len(self.orma_5xx) + len(self.dropped) + len(self.hung) + len(self.health_failed)


def odd_string(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return "".join(rng.choice(ODD_TEXT) for _ in range(rng.randint(1, 3)))
    return rng.choice(ODD_TEXT)


def odd_value(rng: random.Random) -> object:
    return odd_string(rng) if rng.random() < 0.5 else rng.choice(ODD_VALUES)


def deep(levels: int) -> object:
    value: object = []
    for _ in range(levels):
        value = [value]
    return value


def chat_body(rng: random.Random, path: str) -> dict[str, object]:
    messages: list[object] = []
    if rng.random() < 0.4:
        messages.append({"role": "system", "content": odd_string(rng)})
    for _ in range(rng.randint(0, 4)):
        content: object = odd_string(rng)
        if rng.random() < 0.2:
            content = [{"type": "text", "text": odd_string(rng)}, {"type": "image_url"}]
        messages.append(
            {"role": rng.choice(["user", "assistant", "tool", "user"]), "content": content}
        )
    messages.append({"role": "user", "content": odd_string(rng)})
    body: dict[str, object] = {"model": "bench-model", "messages": messages, "max_tokens": 3}
    if rng.random() < 0.6:
        body["stream"] = rng.random() < 0.7 if path != "/api/chat" else rng.random() < 0.3
    if rng.random() < 0.3:
        body["user"] = odd_string(rng)
    return body


def orma_body(rng: random.Random, path: str) -> dict[str, object]:
    if path == "/_orma/api/recall":
        return {"query": odd_value(rng), "space": odd_value(rng) if rng.random() < 0.3 else None}
    operation = rng.choice(["supersede", "release", "unrelease", "purge", "forget", 5])
    body: dict[str, object] = {"operation": operation, "dry_run": rng.random() < 0.7}
    for name in ("old", "new", "query", "ids", "release_id", "threshold", "max_items", "space"):
        if rng.random() < 0.4:
            body[name] = odd_value(rng) if rng.random() < 0.6 else [rng.choice([1, HUGE, -1])]
    return body


def mutate(rng: random.Random, body: dict[str, object]) -> object:
    """Wrong types, odd values, deep nesting: zero to three changes."""
    for _ in range(rng.randint(0, 3)):
        roll = rng.random()
        key = rng.choice([*body.keys(), "vendor_field"]) if body else "x"
        if roll < 0.35:
            body[key] = odd_value(rng)
        elif roll < 0.5:
            body[key] = deep(rng.choice([50, 900, 995, 1000, 5000]))
        elif roll < 0.6:
            body.pop(key, None)
        elif roll < 0.7 and isinstance(messages := body.get("messages"), list):
            body["messages"] = [odd_value(rng), *messages]
        elif roll < 0.75:
            return odd_value(rng)  # not an object at all
    return body


def encode(rng: random.Random, value: object) -> bytes:
    """JSON, sometimes broken: surrogates as raw bytes, truncated, huge raw numbers."""
    try:
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
    except (RecursionError, ValueError):
        text = "[" * 5000 + "]" * 5000
    roll = rng.random()
    if roll < 0.05:
        text = text.replace("3", rng.choice(RAW_NUMBERS), 1)
    raw = text.encode("utf-8", "surrogatepass")
    if roll > 0.97:
        raw = raw[: rng.randint(0, len(raw))]
    elif roll > 0.94:
        at = rng.randint(0, len(raw))
        raw = raw[:at] + bytes([rng.randint(0x80, 0xFF)]) + raw[at:]
    elif roll > 0.92:
        raw = b"\xef\xbb\xbf" + raw
    return raw


def odd_path(rng: random.Random, path: str) -> str:
    roll = rng.random()
    if roll < 0.08:
        return "/" + path
    if roll < 0.14:
        return path.upper()
    if roll < 0.2:
        return path.replace("/", "/./", 1)
    if roll < 0.26:
        return "/x/.." + path
    if roll < 0.32:
        return "/" + path[1:].replace("/", "%2F", 1)
    if roll < 0.42:
        return path.rsplit("/", 1)[0] + "/" + rng.choice(SEGMENTS)
    if roll < 0.46:
        return path + "%00"
    if roll < 0.55:
        return (
            path + "?space=" + rng.choice(["%00", "%F0%9F%99%82", "%ff", "bob", "alice", "x" * 300])
        )
    if roll < 0.6:
        return path + "?limit=" + rng.choice(["%C2%B2", "-1", "99999999999999999999999", "abc"])
    return path


def header_value(rng: random.Random) -> bytes:
    text = odd_string(rng)
    raw = rng.choice([text.encode("utf-8", "surrogatepass"), b"\xff\xfe", b"bob", b"alice"])
    return raw if all(b >= 0x20 and b != 0x7F for b in raw) else b"alice"


def probe(rng: random.Random) -> Probe:
    method, path = rng.choice(ROUTES) if rng.random() < 0.6 else ("POST", rng.choice(CHATS))
    if rng.random() < 0.08:
        method = rng.choice(METHODS)
    body: bytes | None = None
    if method not in ("GET", "HEAD", "OPTIONS"):
        if path in CHAT_ROUTES or path == "/v1/completions":
            value = mutate(rng, chat_body(rng, path))
        else:
            value = mutate(rng, orma_body(rng, path))
        body = encode(rng, value) if rng.random() > 0.03 else b""
    headers: list[tuple[bytes, bytes]] = []
    roll = rng.random()
    if roll < 0.85:
        headers.append((b"authorization", f"Bearer {rng.choice(list(KEYS))}".encode()))
    elif roll < 0.92:
        headers.append((b"authorization", rng.choice([b"Bearer wrong", b"Basic eA==", b"Bearer "])))
    if rng.random() < 0.25:
        name = rng.choice([b"x-orma-space", b"x-openwebui-user-id"])
        headers.append((name, header_value(rng)))
    if body is not None and rng.random() < 0.8:
        headers.append((b"content-type", b"application/json"))
    return Probe(method, odd_path(rng, path), headers, body)


async def send(client: httpx.AsyncClient, base: str, one: Probe, tally: Tally) -> None:
    try:
        request = client.build_request(one.method, base, headers=one.headers, content=one.body)
        request.url = request.url.copy_with(raw_path=one.path.encode("ascii"))
        response = await client.send(request)
    except (httpx.LocalProtocolError, httpx.InvalidURL):
        tally.client_refused += 1  # the client itself would not send it
        return
    except httpx.TimeoutException:
        tally.hung.append(one.describe())
        return
    except httpx.TransportError as exc:
        tally.dropped.append(f"{exc!r}: {one.describe()}")
        return
    tally.statuses[response.status_code] += 1
    if response.status_code >= 500 and MARK_HEADER.decode() not in response.headers:
        tally.orma_5xx.append(f"{response.status_code} {response.text[:200]!r}: {one.describe()}")


async def check_health(client: httpx.AsyncClient, base: str, tally: Tally) -> None:
    try:
        answer = await client.get(f"{base}/health", headers={"authorization": f"Bearer {ADMIN}"})
    except httpx.TransportError as exc:
        tally.health_failed.append(repr(exc))
        return
    if answer.status_code == 200:
        tally.health_ok += 1
    else:
        tally.health_failed.append(f"{answer.status_code} {answer.text[:200]}")


async def fuzz(base: str, count: int, seed: int, seconds: float) -> tuple[Tally, int, float]:
    rng = random.Random(seed)
    probes = [probe(rng) for _ in range(count)]
    tally, sent, began = Tally(), 0, time.monotonic()
    timeout = httpx.Timeout(REQUEST_TIMEOUT_SECONDS)
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
        for start in range(0, count, HEALTH_EVERY):
            if time.monotonic() - began > seconds:
                break
            batch = probes[start : start + HEALTH_EVERY]
            for offset in range(0, len(batch), WORKERS):
                group = batch[offset : offset + WORKERS]
                await asyncio.gather(*(send(client, base, one, tally) for one in group))
            sent += len(batch)
            await check_health(client, base, tally)
    return tally, sent, time.monotonic() - began


async def run(args: argparse.Namespace) -> int:
    folder = Path(tempfile.mkdtemp(prefix="orma-fuzz-"))
    os.environ.update(
        ORMA_DIR=str(folder), ORMA_API_KEYS=";".join(f"{k}={v}" for k, v in KEYS.items())
    )
    log = folder / "proxy.log"
    async with child("bench.upstream", stdout=asyncio.subprocess.PIPE) as upstream:
        assert upstream.stdout is not None
        port = int((await upstream.stdout.readline()).decode())
        sock = listening_socket()
        proxy_port = sock.getsockname()[1]
        sock.close()
        with log.open("wb") as sink:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "orma_proxy.cli", "proxy",
                "--upstream", f"http://127.0.0.1:{port}/v1", "--port", str(proxy_port),
                "--db", str(folder / "fuzz.db"),
                stdout=sink, stderr=sink, stdin=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
            try:
                base = f"http://127.0.0.1:{proxy_port}"
                await wait_until_up(f"{base}/health")
                tally, sent, took = await fuzz(base, args.requests, args.seed, args.seconds)
                alive = process.returncode is None
            finally:
                process.terminate()
                await process.wait()
    crashes = log.read_text("utf-8", "replace").count("Exception in ASGI application")
    print(render(tally, sent, took, args.seed, alive, crashes))
    return 1 if tally.failures or not alive or crashes else 0


def render(tally: Tally, sent: int, took: float, seed: int, alive: bool, crashes: int) -> str:
    by_class = Counter(f"{status // 100}xx" for status in tally.statuses.elements())
    lines = [
        f"bench.fuzz seed {seed}: {sent} requests in {took:.0f} s",
        "  statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(by_class.items())),
        "  most common: " + ", ".join(f"{k}: {v}" for k, v in tally.statuses.most_common(8)),
        f"  Orma-made 5xx: {len(tally.orma_5xx)}",
        f"  dropped connections: {len(tally.dropped)}",
        f"  hung past {REQUEST_TIMEOUT_SECONDS:.0f} s: {len(tally.hung)}",
        f"  /health every {HEALTH_EVERY}: {tally.health_ok} ok, {len(tally.health_failed)} failed",
        f"  tracebacks in the proxy's log: {crashes}; proxy alive at the end: {alive}",
        f"  refused by the client library before sending: {tally.client_refused}",
    ]
    for title, found in (
        ("Orma-made 5xx", tally.orma_5xx),
        ("dropped", tally.dropped),
        ("hung", tally.hung),
        ("health", tally.health_failed),
    ):
        lines += [f"  {title}: {item}" for item in found[:SHOWN]]
    lines.append("  verdict: " + ("FAIL" if tally.failures or not alive or crashes else "ok"))
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__)
    parser.add_argument("--requests", type=int, default=3000, help="how many requests")
    parser.add_argument("--seed", type=int, default=15, help="the random seed (replayable)")
    parser.add_argument("--seconds", type=float, default=900.0, help="stop sending after this")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    sys.exit(asyncio.run(run(parse_args(argv))))


if __name__ == "__main__":
    main()
