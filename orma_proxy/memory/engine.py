"""``AsyncMemory``: the asyncio engine behind the SDK, the CLI and the proxy.

Writing, reading, sleep and the states set by hand live here; opening and
closing (``lifecycle.py``), forgetting on request (``forgetting.py``) and
portability (``portability.py``) are the bases it is built from.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orma_proxy.errors import InputError, OrmaError, StoreError
from orma_proxy.facts import FORBID_MARK, State, forget_state, list_facts, state_by_id
from orma_proxy.inputs import DEFAULT_SPACE, check_space, check_text
from orma_proxy.memory.episodes import When, prepare, timestamp
from orma_proxy.memory.files import StoredPiece, store_file
from orma_proxy.memory.forgetting import Forgetting
from orma_proxy.memory.messages import inject_block, recall_query, text_of
from orma_proxy.memory.portability import Portability
from orma_proxy.memory.stats import Stats, collect_stats
from orma_proxy.sleep.batch import OWN_WORDS
from orma_proxy.store import stored_at
from orma_proxy.store.connect import Connection, DatabaseError
from orma_proxy.store.episodes import insert_episode, sentence_ranges

if TYPE_CHECKING:  # recall, sleep and httpx load with the first search, recall or sleep
    import httpx  # (``orma stats`` and the other commands that embed nothing never need them)

    from orma_proxy.recall.floor import BackgroundFloor, QueryFloor
    from orma_proxy.recall.pack import MemoryBlock, TokenCounter
    from orma_proxy.recall.search import SearchResult
    from orma_proxy.sleep import Clock, Sleeper, SleepReport, UpstreamGate


class AsyncMemory(Forgetting, Portability):
    """Long-term memory on one SQLite file.

    Use ``async with AsyncMemory(...) as mem`` (or ``await mem.open()`` and
    ``await mem.close()``). Every space is isolated from every other.
    """

    # --- writing -----------------------------------------------------------------

    async def add(
        self,
        text: str,
        space: str = DEFAULT_SPACE,
        role: str = "note",
        at: When = None,
        *,
        source: str | None = None,
        metadata: dict[str, Any] | None = None,
        speaker: str | None = None,
    ) -> int:
        """Store ``text`` as a new episode and index its sentences; returns the episode id.

        When this returns the episode is committed: it survives a crash of the
        process one instant later, and a search finds it by its words at once.
        A leading ``Name:`` (or ``speaker``) is kept as ``metadata["speaker"]``
        and not indexed as words (``text/speaker.py``). A user's or a note's
        rules ("never ...") and rule-based facts are drawn from it at once:
        "I moved to Bangalore" outdates "I live in Pune" before any sleep.
        """
        if speaker is not None:
            speaker = check_text(speaker, "speaker").strip()
        episode_id, _ = await self._store(
            text, space, role, at, source=source, metadata=metadata, speaker=speaker
        )
        if role in OWN_WORDS and "orma" not in (metadata or {}):  # forbid, supersede: by hand
            await self._draw(check_space(space), [episode_id])
        return episode_id

    async def _draw(self, space: str, episode_ids: list[int]) -> None:
        """Rules and rule-based facts of the user's new lines, at once (``sleep/awake.py``),
        one draw after another (``_drawing``)."""
        from orma_proxy.sleep import draw_on_record

        async with self._drawing:
            await draw_on_record(self.sleeper(), space, episode_ids, self.config)

    async def _store(
        self,
        text: str,
        space: str,
        role: str,
        at: When,
        *,
        source: str | None,
        metadata: dict[str, Any] | None,
        speaker: str | None = None,
    ) -> tuple[int, int]:
        """Commit one episode; its id and how many sentences it has."""
        db = self._opened()
        now = time.time()
        episode, segments = await prepare(
            text,
            space,
            role,
            said_at=timestamp(at, default=now),
            created_at=now,
            max_chars=self.config.max_sentence_chars,
            source=source,
            metadata=metadata,
            speaker=speaker,
            detect_speaker=role != "document",
        )
        try:
            episode_id = await db.writer.execute_write_fn(
                lambda conn: insert_episode(conn, episode, segments)
            )
        except DatabaseError as exc:  # a full disk, an I/O error: rolled back, nothing stored
            raise StoreError(f"not stored: {exc}") from exc
        self._index_new()
        return episode_id, len(segments)

    async def add_file(
        self,
        path: str | Path,
        space: str = DEFAULT_SPACE,
        role: str = "document",
        *,
        on_piece: Callable[[StoredPiece], None] | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> list[int]:
        """Store a text or Markdown file; returns its episode ids in file order.

        The whole file is checked first, so a binary or non-UTF-8 byte anywhere
        stores nothing (``UnreadableFileError`` names the offset). It is then
        read in pieces of at most ``config.file_piece_chars`` characters, each
        committed as its own episode whose source is the path and whose metadata
        holds its byte range (``file_offset``, ``file_end``): memory stays bounded
        whatever the file's size (``memory/files.py``). ``on_piece`` hears of each
        commit; ``stop()`` returning true ends the file early, keeping what was
        committed.
        """
        said_at = time.time()

        async def store(text: str, source: str, metadata: dict[str, Any]) -> tuple[int, int]:
            return await self._store(text, space, role, said_at, source=source, metadata=metadata)

        return await store_file(path, self.config.file_piece_chars, store, on_piece, stop)

    async def observe(
        self,
        role: str,
        text: str,
        space: str = DEFAULT_SPACE,
        at: When = None,
        *,
        name: str | None = None,
    ) -> int:
        """Record one chat turn (``user``, ``assistant`` or ``tool``); ``name``: who said it."""
        if role not in ("user", "assistant", "tool"):
            raise InputError(f"observe() records user, assistant or tool turns, not {role!r}")
        return await self.add(text, space=space, role=role, at=at, speaker=name)

    async def add_exchange(
        self,
        turns: Sequence[tuple[str, str, dict[str, Any]]],
        space: str,
        *,
        heard_at: float,
        at: float | None = None,
        once: bool = False,
    ) -> list[int | None]:
        """Store one chat exchange's turns (role, text, metadata) in one commit; their ids.

        A text purge of ``space`` committed after ``heard_at`` (Unix time), in any
        process, binds them too: a turn holding its text is not stored (None), as
        the purge would have erased it had the turn been stored a moment earlier.
        ``at`` (Unix time, default now) is when they are stored as said: a retry
        passes its first try's. ``once=True`` (a retry after an ``UnsureWriteError``)
        returns the ids of the turns the first try stored at ``at``, if it did.
        """
        db = self._opened()
        space, now = check_space(space), time.time()
        said_at = now if at is None else at
        max_chars = self.config.max_sentence_chars
        episodes = [  # a chat turn is stored as said: no "Name:" is taken for a speaker
            await prepare(
                text,
                space,
                role,
                said_at=said_at,
                created_at=now,
                max_chars=max_chars,
                metadata=metadata,
                detect_speaker=False,
            )
            for role, text, metadata in turns
        ]
        said = [(episode.role, episode.text) for episode, _ in episodes]
        from orma_proxy.forget.tombstones import add_unless_purged  # not in the writer's thread

        def write(conn: Connection) -> list[int | None]:
            if once and (ids := stored_at(conn, space, said_at, said)) is not None:
                return ids
            return add_unless_purged(conn, space, heard_at, episodes)

        ids = await db.writer.execute_write_fn(write)
        self._index_new()
        own = [i for i, (role, _, _) in zip(ids, turns, strict=True) if i and role in OWN_WORDS]
        await self._draw(space, own)
        return ids

    async def embed_episodes(
        self, episode_ids: Iterable[int], *, on_embedded: Callable[[int], None] | None = None
    ) -> None:
        """Embed these episodes' sentences now, ahead of any other pending work.

        Waits for them alone, never for the backlog of other spaces or processes;
        ``on_embedded(n)`` is called as each batch of ``n`` sentences is stored.
        """
        db = self._opened()
        wanted = list(episode_ids)
        ranges = await db.reader.execute_fn(lambda conn: sentence_ranges(conn, wanted))
        assert self._indexer is not None
        await self._indexer.embed_first(ranges, on_embedded)

    # --- reading -------------------------------------------------------------------

    async def search(
        self, query: str, space: str = DEFAULT_SPACE, k: int = 10, *, at: When = None
    ) -> SearchResult:
        """Hybrid (BM25 + vector) search of one space; no LLM involved.

        A date the query names is matched too; ``at`` (default now) is the day
        its relative dates ("last week") are read from.
        """
        db = self._opened()
        query = check_text(query, "query")
        space = check_space(space)
        if k < 1:
            raise InputError("k must be at least 1")
        from orma_proxy.recall import (
            Probe,
            SearchResult,
            below_floor,
            hybrid_search,
            matching_states,
        )

        probe = Probe()
        passages = await hybrid_search(
            db.reader,
            probe.embedding(self.embed_query),
            query,
            space,
            k=k,
            config=self.config,
            vectors=db.vectors,
            keywords=db.keywords,
            now=timestamp(at, default=time.time()),
            floor=self._query_floor,
        )
        states: list[object] = []
        events: list[object] = []
        if self.config.enable_semantic:
            cited = [p.sentence_id for p in passages]
            found = await matching_states(db.reader, space, query, cited, k)
            states, events = [*found[0]], [*found[1]]
        below: frozenset[int] = frozenset()
        floor, vector = self._query_floor, probe.vector
        if floor is not None and vector is not None and passages:
            least = await floor(vector, self.config.recall_topic_margin)
            below = await db.reader.execute_fn(
                lambda c: below_floor(
                    c, passages, query, vector, least, self.config.recall_topic_share
                )
            )
        return SearchResult(
            query=query,
            space=space,
            passages=passages,
            states=states,
            events=events,
            below_floor=below,
        )

    async def recall(
        self,
        query: str,
        space: str = DEFAULT_SPACE,
        *,
        budget_tokens: int | None = None,
        exclude_texts: Iterable[str] = (),
        at: When = None,
        count_tokens: TokenCounter | None = None,
    ) -> MemoryBlock:
        """The memory block for ``query``: what the proxy injects, within the token budget.

        ``exclude_texts`` are texts the model already sees (the conversation), left
        out. ``at`` recalls as of that moment (default now): the clock of every
        temporal boost and the block's "Today is". ``count_tokens`` counts with the
        upstream model's tokenizer when the caller has it (else ``config.tokenizer``,
        else the embedder's). The items returned are logged after, in the background.
        """
        db = self._opened()
        query = check_text(query, "query")
        space = check_space(space)
        now = timestamp(at, default=time.time())
        budget = min(budget_tokens or self.config.budget_tokens, self.config.budget_tokens)
        from orma_proxy.recall import RecallRequest, recall_block

        request = RecallRequest(
            query=query[: self.config.max_query_chars],
            space=space,
            now=now,
            today=datetime.fromtimestamp(now).astimezone().date(),
            budget_tokens=budget,
            count_tokens=count_tokens or self._count_tokens,
            exclude_texts=tuple(exclude_texts),
        )
        assert self._access is not None and self._recall_slots is not None
        async with self._recall_slots:
            block = await recall_block(
                db.reader,
                self.embed_query,
                request,
                self.config,
                vectors=db.vectors,
                keywords=db.keywords,
                floor=self._query_floor,
            )
        self._access.record(space, block.keys(), now)
        return block

    async def recall_conversation(
        self,
        messages: list[dict[str, Any]],
        space: str = DEFAULT_SPACE,
        *,
        budget_tokens: int | None = None,
        at: When = None,
        count_tokens: TokenCounter | None = None,
    ) -> MemoryBlock:
        """The memory block for a chat turn: what ``build_context`` and the proxy inject.

        The query is the latest user message, then a little of the ones before it
        (``recall_query``); the last ``recall_exclude_messages`` messages are left
        out of the block, since the model sees them already. A conversation with
        no user text gets an empty block.
        """
        query = recall_query(
            messages, self.config.recall_context_messages, self.config.recall_context_chars
        )
        if not query.strip():
            from orma_proxy.recall import MemoryBlock

            return MemoryBlock("", 0)
        recent = messages[-self.config.recall_exclude_messages :]
        return await self.recall(
            query,
            space,
            budget_tokens=budget_tokens,
            exclude_texts=[text_of(m.get("content")) for m in recent],
            at=at,
            count_tokens=count_tokens,
        )

    async def build_context(
        self,
        messages: list[dict[str, Any]],
        space: str = DEFAULT_SPACE,
        *,
        budget_tokens: int | None = None,
        at: When = None,
    ) -> list[dict[str, Any]]:
        """``messages`` with the memory block merged into the system prompt, as the proxy does.

        The block is ``recall_conversation``'s, appended to the first system
        message, or a system message is added first. The list given is not changed.
        """
        block = await self.recall_conversation(messages, space, budget_tokens=budget_tokens, at=at)
        return list(messages) if block.empty else inject_block(messages, block.text)

    @cached_property
    def _background(self) -> BackgroundFloor:
        from orma_proxy.recall import BackgroundFloor

        return BackgroundFloor(self._embed_fixed, lambda: self.embedder.model_id)

    @property
    def _query_floor(self) -> QueryFloor | None:
        """The query's own noise floor for vector hits (``recall/floor.py``), if it is on."""
        quantile = self.config.noise_floor_background_quantile
        if quantile is None or not self.config.enable_similarity_weighting:
            return None
        return lambda vector, margin: self._background(vector, quantile, margin)

    @cached_property
    def _count_tokens(self) -> TokenCounter:
        """``config.tokenizer`` if set, else the embedder's tokenizer, else an estimate.

        Counts are remembered (LRU): the same state lines come back recall after
        recall, and tokenizing them again would cost more than the search.
        """
        from orma_proxy.recall import estimate_tokens, load_token_counter

        counter: TokenCounter = getattr(self.embedder, "count_tokens", estimate_tokens)
        if self.config.tokenizer is not None:
            counter = load_token_counter(self.config.tokenizer)
        return lru_cache(maxsize=self.config.token_count_cache)(counter)

    async def warm_up(self) -> None:
        """Run the query path once so the first real request doesn't pay for it."""
        await self.embed_query("warm up")

    async def stats(self, space: str | None = None) -> Stats:
        db = self._opened()
        return await collect_stats(
            db.reader, db.location, space, db.embedder.model_id, db.embedder.dim
        )

    # --- sleep: consolidation into states and events -----------------------------------

    def sleeper(
        self,
        *,
        http: httpx.AsyncClient | None = None,
        gate: UpstreamGate | None = None,
        clock: Clock | None = None,
    ) -> Sleeper:
        """A consolidator on this memory's file; a server passes its shared client and gate.

        ``SleepScheduler(mem.sleeper(http=client, gate=gate), mem.config)`` runs it in
        the background of the server's event loop. ``clock`` (tests) times the backoff
        between failed LLM tries.
        """
        from orma_proxy.sleep import Sleeper

        db = self._opened()
        return Sleeper(
            db.reader, db.writer, self._embed_batch, self.config, http=http, gate=gate, clock=clock
        )

    async def sleep(
        self, space: str | None = None, model: str | None = None, redo: bool = False
    ) -> SleepReport:
        """Consolidate pending episodes into states and events now (every space when None).

        ``redo=True`` forgets the space's states and events and rebuilds them from
        its episodes. Without a reachable LLM, a rule-based extractor is used.
        """
        if space is not None:
            space = check_space(space)
        return await self.sleeper().sleep(space, model=model, redo=redo)

    async def facts(self, space: str = DEFAULT_SPACE, include_history: bool = False) -> list[State]:
        """Active states of a space; with history, also closed ones and what replaced them."""
        db = self._opened()
        space = check_space(space)
        return await db.reader.execute_fn(
            lambda conn: list_facts(conn, space, include_history=include_history)
        )

    # --- states set by hand: forbid a rule now, forget a state --------------------------

    async def forbid(self, rule: str, space: str = DEFAULT_SPACE) -> State:
        """Register ``rule`` as forbidden at once: a ``forbidden_<name>`` state, no sleep needed.

        The rule is stored as a note (the episode the state cites) and applied
        through sleep's own apply step; every recall of the space then carries
        it first, as ``[FORBIDDEN: ...]``. The same rule again returns the same state.
        """
        db = self._opened()
        rule = check_text(rule, "rule")
        space = check_space(space)
        episode_id = await self.add(rule, space=space, role="note", metadata={"orma": FORBID_MARK})
        from orma_proxy.sleep import register_rule

        state_id = await db.writer.execute_write_fn(
            lambda conn: register_rule(conn, space, episode_id, rule, self.config)
        )
        return await self._state(space, state_id)

    async def forget(self, state_id: int, space: str = DEFAULT_SPACE) -> State:
        """Close state ``state_id`` now. It stays in history, never deleted.

        An unknown id, another space's id or an already closed state is an ``InputError``.
        """
        db = self._opened()
        space = check_space(space)
        if isinstance(state_id, bool) or not isinstance(state_id, int):
            raise InputError(f"state_id must be an integer, not {state_id!r}")
        await db.writer.execute_write_fn(lambda conn: forget_state(conn, space, state_id))
        return await self._state(space, state_id, released=True)

    async def _state(self, space: str, state_id: int, *, released: bool = False) -> State:
        found = await self._opened().reader.execute_fn(
            lambda conn: state_by_id(conn, space, state_id, released=released)
        )
        if found is None:  # removed in between, e.g. by a redo in another process
            raise OrmaError(f"state #{state_id} of space {space!r} is gone")
        return found
