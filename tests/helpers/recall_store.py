"""A hand-built store for recall tests: episodes through ``add``, states and events by SQL.

Sleep is left out on purpose, and so is what is drawn from a line as it is
recorded (``enable_facts_on_record``): each test states exactly which facts
exist, which replaced which and what links to what, so a ranking or packing
test fails only for a ranking or packing reason. The SQL goes through a writer of
its own on the memory's file or database (one per call), as another process would write.
"""

from __future__ import annotations

import json
from datetime import datetime

from orma_proxy import AsyncMemory
from orma_proxy.store import Connection, Writer
from tests.helpers.rawdb import scalar, writing

# The moment the Sahil story (``sahil``) is asked about.
TODAY = "2026-11-01T10:00:00+05:30"


def ts(when: str) -> float:
    """Unix seconds of an ISO time (with its offset)."""
    return datetime.fromisoformat(when).timestamp()


class Store:
    """Writes one space's episodes, states, events and entity links."""

    def __init__(self, mem: AsyncMemory, space: str = "default") -> None:
        self.mem = mem
        self.space = space
        mem.config.enable_facts_on_record = False

    async def say(self, text: str, when: str, role: str = "user") -> int:
        """Store one episode; returns the id of its first sentence."""
        episode = await self.mem.add(text, self.space, role=role, at=when)
        first = scalar(
            self.mem.location,
            "SELECT id FROM sentences WHERE episode_id = ? ORDER BY position LIMIT 1",
            episode,
        )
        return int(first)

    async def entity(self, name: str) -> int:
        async with writing(self.mem.location) as db:
            return await self._entity(db, name)

    async def _entity(self, db: Writer, name: str) -> int:
        def job(conn: Connection) -> int:
            kind = "user" if name == "user" else "person"
            conn.execute(
                "INSERT INTO entities (space, name, kind, created_at) "
                "VALUES (?, ?, ?, 0) ON CONFLICT DO NOTHING",
                (self.space, name, kind),
            )
            row = conn.execute(
                "SELECT id FROM entities WHERE space = ? AND name = ?", (self.space, name)
            ).fetchone()
            assert row is not None
            return int(row[0])

        return await db.execute_write_fn(job)

    async def link(self, name: str, kind: str, target: int) -> None:
        async with writing(self.mem.location) as db:
            await self._link(db, name, kind, target)

    async def _link(self, db: Writer, name: str, kind: str, target: int) -> None:
        entity = await self._entity(db, name)
        await db.execute_write_fn(
            lambda conn: conn.execute(
                "INSERT INTO entity_links (entity_id, kind, target_id, space) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (entity, kind, target, self.space),
            )
        )

    async def state(
        self,
        sentence: int,
        attribute: str,
        value: str,
        *,
        entity: str = "user",
        condition: str = "",
        since: str | None = None,
        prohibited: bool = False,
        rehearsals: int = 1,
        rehearsed_at: str | None = None,
        links: tuple[str, ...] = (),
    ) -> int:
        """An active state citing ``sentence``, linked to its holder and ``links``."""

        def job(conn: Connection, holder: int) -> int:
            row = conn.execute(
                "SELECT s.episode_id, e.said_at FROM sentences s "
                "JOIN episodes e ON e.id = s.episode_id WHERE s.id = ?",
                (sentence,),
            ).fetchone()
            assert row is not None
            episode, said_at = int(row[0]), float(row[1])
            inserted = conn.execute(
                "INSERT INTO states (space, entity_id, attribute, value, condition, prohibited, "
                "since, stated_at, valid_from, rehearsals, rehearsed_at, sentence_id, episode_id, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    self.space, holder, attribute, value, condition, int(prohibited), since,
                    said_at, said_at, rehearsals, ts(rehearsed_at) if rehearsed_at else None,
                    sentence, episode, said_at,
                ),
            )  # fmt: skip
            return int(inserted.fetchone()[0])

        async with writing(self.mem.location) as db:
            holder = await self._entity(db, entity)
            state_id = await db.execute_write_fn(lambda conn: job(conn, holder))
            for name in (entity, *links):
                await self._link(db, name, "state", state_id)
        return state_id

    async def supersede(self, old: int, new: int) -> None:
        """Close ``old`` as replaced by ``new`` (from the moment ``new`` became true)."""
        async with writing(self.mem.location) as db:
            await db.execute_write_fn(
                lambda conn: conn.execute(
                    "UPDATE states SET active = 0, superseded_by = ?, end_reason = 'superseded', "
                    "valid_to = (SELECT valid_from FROM states WHERE id = ?) WHERE id = ?",
                    (new, new, old),
                )
            )

    async def event(
        self, sentence: int, what: str, date: str | None, *, who: tuple[str, ...] = (),
        links: tuple[str, ...] = (),
    ) -> int:  # fmt: skip
        """An event citing ``sentence``, linked to ``who`` and ``links``."""

        def job(conn: Connection) -> int:
            inserted = conn.execute(
                "INSERT INTO events (space, what, date, precision, who, sentence_id, episode_id, "
                "created_at) SELECT ?, ?, ?, ?, ?, id, episode_id, 0 FROM sentences WHERE id = ? "
                "RETURNING id",
                (self.space, what, date, "day" if date else None, json.dumps(list(who)), sentence),
            )
            return int(inserted.fetchone()[0])

        async with writing(self.mem.location) as db:
            event_id = await db.execute_write_fn(job)
            for name in (*who, *links):
                await self._link(db, name, "event", event_id)
        return event_id


async def sahil(store: Store) -> None:
    """The original Orma's example: Pune -> Bangalore, coffee / tea, Zerodha, a Swiss knife."""
    pune_line = await store.say("I'm Sahil and I live in Pune.", "2026-10-10T09:00:00+05:30")
    pune = await store.state(pune_line, "home_city", "Pune", links=("Pune",))
    moved = await store.say("I moved to Bangalore.", "2026-10-17T09:00:00+05:30")
    blr = await store.state(
        moved, "home_city", "Bangalore", since="2026-10-17", links=("Bangalore",)
    )
    await store.supersede(pune, blr)
    coffee = await store.say("I drink black coffee every morning.", "2026-10-10T09:05:00+05:30")
    await store.state(coffee, "morning_drink", "black coffee")
    tea = await store.say(
        "When I have a sore throat, I drink warm ginger tea with raw honey.",
        "2026-10-20T08:00:00+05:30",
    )
    await store.state(
        tea, "morning_drink", "warm ginger tea with raw honey", condition="sore throat"
    )
    job = await store.say("I'm a systems engineer at Zerodha.", "2026-10-11T10:00:00+05:30")
    await store.state(job, "role", "systems engineer @ Zerodha", links=("Zerodha",))
    gift = await store.say("My manager gave me a Swiss knife today.", "2026-11-01T09:00:00+05:30")
    await store.event(gift, "user received a gift from manager: Swiss knife", "2026-11-01")
