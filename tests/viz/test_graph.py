"""The viz graph of a large space: capped to its most active items, rules first, and fast."""

from __future__ import annotations

import math
import time

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.config import OrmaConfig
from orma_proxy.recall.temporal import History
from orma_proxy.store import Access, Connection, Reader, Writer, add_accesses
from orma_proxy.viz.graph import build_graph, signals
from tests.helpers.rawdb import rows

pytestmark = pytest.mark.slow

STATES = 5_200
RULES = 3
HUBS = 40  # each state links to the user and to one of these
HOT = 25  # states recalled in the last minutes


def _fill(conn: Connection, now: float) -> None:
    """One cited sentence, thousands of states and their links, written in one transaction."""
    row = conn.execute("SELECT id, episode_id FROM sentences LIMIT 1").fetchone()
    assert row is not None
    sentence, episode = int(row[0]), int(row[1])
    names = ["user", *(f"Place {n}" for n in range(HUBS))]
    conn.executemany(
        "INSERT INTO entities (space, name, kind, created_at) VALUES ('big', ?, ?, ?)",
        [(n, "user" if n == "user" else "thing", now) for n in names],
    )
    conn.executemany(
        "INSERT INTO states (space, entity_id, attribute, value, prohibited, stated_at, "
        "valid_from, sentence_id, episode_id, created_at) "
        "VALUES ('big', 1, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                f"forbidden_thing_{n}" if n < RULES else f"fact_{n}",
                f"value {n}",
                int(n < RULES),
                now - 86_400 * 30,
                now - 86_400 * 30,
                sentence,
                episode,
                now,
            )
            for n in range(STATES)
        ],
    )
    states = [int(r[0]) for r in conn.execute("SELECT id FROM states ORDER BY id").fetchall()]
    hubs = {
        str(r[0]): int(r[1])
        for r in conn.execute("SELECT name, id FROM entities WHERE space = 'big'").fetchall()
    }
    links = [(hubs["user"], s) for s in states]
    links += [(hubs[f"Place {i % HUBS}"], s) for i, s in enumerate(states)]
    conn.executemany(
        "INSERT INTO entity_links (entity_id, kind, target_id, space) "
        "VALUES (?, 'state', ?, 'big')",
        links,
    )
    hot = states[-HOT:]
    add_accesses(conn, [Access("big", "state", s, now - 60 * k) for s in hot for k in range(3)], 3)


@pytest.mark.both_backends
async def test_a_large_space_keeps_rules_and_the_most_active_and_says_so(
    amem: AsyncMemory, reader: Reader, writer: Writer
) -> None:
    now = time.time()
    await amem.add("A note every state cites.", "big")
    await writer.execute_write_fn(lambda conn: _fill(conn, now))
    started = time.perf_counter()
    graph = await reader.execute_fn(lambda c: build_graph(c, "big", amem.config, now, 2_000))
    seconds = time.perf_counter() - started
    shown = {node.id: node for node in graph.nodes}
    assert len(graph.nodes) == 2_000 and graph.total == STATES + HUBS + 1
    assert graph.as_dict()["capped"] is True
    assert graph.note == (
        f"Showing the 2,000 most active of {STATES + HUBS + 1:,} nodes (rules first); "
        f"the other {STATES + HUBS + 1 - 2_000:,} are left out."
    )
    ids = [int(r[0]) for r in rows(amem.location, "SELECT id FROM states ORDER BY id")]
    assert [node.kind for node in graph.nodes[:RULES]] == ["rule"] * RULES
    hot = [shown[f"state:{state}"] for state in ids[-HOT:]]  # recalled minutes ago
    cold = [n for n in graph.nodes[RULES:] if n.kind == "state" and n not in hot]
    assert min(n.activation for n in hot) > max(n.activation for n in cold)
    assert min(n.pulse for n in hot) > max(n.pulse for n in cold)
    assert f"state:{ids[RULES]}" not in shown  # as quiet as the rest and the oldest: left out
    assert {f"entity:{n}" for n in range(1, HUBS + 2)} <= set(shown)  # every hub a kept item needs
    drawn = set(shown)
    assert all(a in drawn and b in drawn for a, b, _ in graph.links)
    assert seconds < 20, f"building the graph of {STATES:,} states took {seconds:.1f}s"


def test_a_burst_of_recalls_makes_an_item_pulse_faster(config: OrmaConfig) -> None:
    now = 1_800_000_000.0
    month_old = History(now - 30 * 86_400)
    recalled = History(now - 30 * 86_400, accesses=(now - 120, now - 60, now - 10))
    fresh = History(now - 60)
    quiet, busy, new = (signals(h, now, config) for h in (month_old, recalled, fresh))
    assert busy.pulse > new.pulse > quiet.pulse >= 0
    assert busy.activation > quiet.activation
    assert math.isclose(
        new.pulse, 0.6 * math.exp(-60 / 86_400 / config.ebbinghaus_s0_days), rel_tol=1e-3
    )
