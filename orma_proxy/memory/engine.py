"""``AsyncMemory``: the asyncio engine behind the SDK, the CLI and the proxy."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from functools import cached_property, lru_cache, partial
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TextIO

import httpx
import numpy as np

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Embedder, Vectors, fit
from orma_proxy.embed.models import load_embedder
from orma_proxy.errors import ConfigError, InputError, OrmaError, StoreError
from orma_proxy.facts import FORBID_MARK, State, list_facts, state_by_id
from orma_proxy.forget import AuditEntry, ForgetResult
from orma_proxy.forget.audit import read_audit
from orma_proxy.forget.purge import purge
from orma_proxy.forget.release import release, unrelease
from orma_proxy.forget.supersede import supersede
from orma_proxy.forget.tombstones import add_unless_purged
from orma_proxy.inputs import DEFAULT_SPACE, check_space, check_text
from orma_proxy.memory.episodes import When, prepare, timestamp
from orma_proxy.memory.files import StoredPiece, store_file
from orma_proxy.memory.indexer import Indexer
from orma_proxy.memory.messages import inject_block, recall_query, text_of
from orma_proxy.memory.priority import lower_thread_priority
from orma_proxy.memory.stats import Stats, collect_stats
from orma_proxy.offload import in_thread
from orma_proxy.portable.export import export_to
from orma_proxy.portable.load import import_records, read_export
from orma_proxy.portable.rebuild import RebuildReport, rebuild
from orma_proxy.recall.access import AccessLog
from orma_proxy.recall.pack import MemoryBlock, TokenCounter, estimate_tokens
from orma_proxy.recall.pipeline import RecallRequest, recall_block
from orma_proxy.recall.search import SearchResult, hybrid_search
from orma_proxy.recall.states import matching_states
from orma_proxy.recall.tokens import load_token_counter
from orma_proxy.sleep import Sleeper, SleepReport, UpstreamGate
from orma_proxy.sleep.manual import forget_state, register_rule
from orma_proxy.store.backup import backup
from orma_proxy.store.connect import DatabaseError
from orma_proxy.store.database import Database
from orma_proxy.store.episodes import insert_episode, sentence_ranges
from orma_proxy.store.vector_index import VectorIndex

# Sentences per embedding call of the indexer. A call cannot be interrupted, and
# close() waits for the one in flight: a few sentences take well under a second.
_INDEX_CHUNK = 8


class AsyncMemory:
    """Long-term memory on one SQLite file.

    Use ``async with AsyncMemory(...) as mem`` (or ``await mem.open()`` and
    ``await mem.close()``). Every space is isolated from every other.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        upstream: str | None = None,
        model: str | None = None,
        config: OrmaConfig | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        updates: dict[str, Any] = {}
        if path is not None:
            updates["db_path"] = Path(path)
        if upstream is not None:
            updates["upstream"] = upstream
        if model is not None:
            updates["model"] = model
        self.config = (config or OrmaConfig.load()).model_copy(update=updates)
        if embedder is not None and not isinstance(embedder, Embedder):
            raise ConfigError(
                "embedder must have model_id, dim and embed(list[str]) -> (n, dim) float32"
            )
        self._given_embedder = embedder
        self._db: Database | None = None
        self._indexer: Indexer | None = None
        self._query_pool: ThreadPoolExecutor | None = None
        self._index_pool: ThreadPoolExecutor | None = None
        self._access: AccessLog | None = None
        self._recall_slots: asyncio.Semaphore | None = None

    # --- lifecycle -------------------------------------------------------------

    async def open(self, *, reindex: bool = False) -> Self:
        """Open the database (creating it if needed) and start the vector indexer.

        ``reindex=True`` accepts an embedding model other than the one the file was
        built with, drops the old vectors and re-embeds every sentence.
        """
        if self._db is not None:
            return self
        self._db = await Database.open(self.config, self._make_embedder, rebind=reindex)
        self._query_pool = ThreadPoolExecutor(1, thread_name_prefix="orma-embed-query")
        self._index_pool = ThreadPoolExecutor(
            1,
            thread_name_prefix="orma-embed-index",
            initializer=lower_thread_priority,
            initargs=(self.config.index_nice,),
        )
        self._indexer = Indexer(
            self._db.reader,
            self._db.writer,
            self._embed_batch,
            self.config,
            background=self.config.index_in_background,
        )
        self._indexer.start()
        self._access = AccessLog(self._db.writer, self.config)
        self._recall_slots = asyncio.Semaphore(self.config.recall_concurrency)
        return self

    async def close(self) -> None:
        """Stop background work and close the file. Pending vectors resume next time."""
        if self._access is not None:
            await self._access.close()
            self._access = None
        if self._indexer is not None:
            await self._indexer.close()
            self._indexer = None
        if self._db is not None:
            await self._db.close()
            self._db = None
        for pool in (self._query_pool, self._index_pool):
            if pool is not None:
                pool.shutdown(wait=True)
        self._query_pool = self._index_pool = None

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def embedder(self) -> Embedder:
        return self._opened().embedder

    @property
    def path(self) -> Path:
        return self.config.resolved_db_path()

    @property
    def vector_index(self) -> VectorIndex:
        """The in-memory k-NN of the spaces this process searches often."""
        return self._opened().vectors

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
        and not indexed as words (``text/speaker.py``).
        """
        if speaker is not None:
            speaker = check_text(speaker, "speaker").strip()
        episode_id, _ = await self._store(
            text, space, role, at, source=source, metadata=metadata, speaker=speaker
        )
        return episode_id

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
            episode_id = await db.writer.submit(
                lambda conn: insert_episode(conn, episode, segments)
            )
        except DatabaseError as exc:  # a full disk, an I/O error: rolled back, nothing stored
            raise StoreError(f"not stored: {exc}") from exc
        assert self._indexer is not None
        self._indexer.notify()
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
        self, turns: Sequence[tuple[str, str, dict[str, Any]]], space: str, *, heard_at: float
    ) -> list[int | None]:
        """Store one chat exchange's turns (role, text, metadata) in one commit; their ids.

        A text purge of ``space`` committed after ``heard_at`` (Unix time), in any
        process, binds them too: a turn holding its text is not stored (None), as
        the purge would have erased it had the turn been stored a moment earlier.
        """
        db = self._opened()
        space, now = check_space(space), time.time()
        max_chars = self.config.max_sentence_chars
        episodes = [  # a chat turn is stored as said: no "Name:" is taken for a speaker
            await prepare(
                text,
                space,
                role,
                said_at=now,
                created_at=now,
                max_chars=max_chars,
                metadata=metadata,
                detect_speaker=False,
            )
            for role, text, metadata in turns
        ]
        ids = await db.writer.submit(
            lambda conn: add_unless_purged(conn, space, heard_at, episodes)
        )
        assert self._indexer is not None
        self._indexer.notify()
        return ids

    async def flush(self) -> None:
        """Wait until every stored sentence is searchable by vector, and recall's log is written.

        Spaces being loaded into the in-memory vector index are waited for too.
        """
        db = self._opened()
        assert self._indexer is not None and self._access is not None
        await self._indexer.flush()
        await self._access.flush()
        await db.vectors.settle()

    async def embed_episodes(
        self, episode_ids: Iterable[int], *, on_embedded: Callable[[int], None] | None = None
    ) -> None:
        """Embed these episodes' sentences now, ahead of any other pending work.

        Waits for them alone, never for the backlog of other spaces or processes;
        ``on_embedded(n)`` is called as each batch of ``n`` sentences is stored.
        """
        db = self._opened()
        ranges = await sentence_ranges(db.reader, list(episode_ids))
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
        passages = await hybrid_search(
            db.reader,
            self.embed_query,
            query,
            space,
            k=k,
            config=self.config,
            vectors=db.vectors,
            now=timestamp(at, default=time.time()),
        )
        states: list[object] = []
        events: list[object] = []
        if self.config.enable_semantic:
            cited = [p.sentence_id for p in passages]
            found = await matching_states(db.reader, space, query, cited, k)
            states, events = [*found[0]], [*found[1]]
        return SearchResult(
            query=query, space=space, passages=passages, states=states, events=events
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
                db.reader, self.embed_query, request, self.config, vectors=db.vectors
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
    def _count_tokens(self) -> TokenCounter:
        """``config.tokenizer`` if set, else the embedder's tokenizer, else an estimate.

        Counts are remembered (LRU): the same state lines come back recall after
        recall, and tokenizing them again would cost more than the search.
        """
        counter: TokenCounter = getattr(self.embedder, "count_tokens", estimate_tokens)
        if self.config.tokenizer is not None:
            counter = load_token_counter(self.config.tokenizer)
        return lru_cache(maxsize=self.config.token_count_cache)(counter)

    async def warm_up(self) -> None:
        """Run the query path once so the first real request doesn't pay for it."""
        await self.embed_query("warm up")

    async def stats(self, space: str | None = None) -> Stats:
        db = self._opened()
        return await collect_stats(db.reader, db.path, space, db.embedder.model_id, db.embedder.dim)

    # --- internals -------------------------------------------------------------------

    def _opened(self) -> Database:
        if self._db is None:
            raise OrmaError(
                "memory is not open: use `async with AsyncMemory() as mem` or `await mem.open()`"
            )
        return self._db

    def _make_embedder(self, recorded_model: str | None) -> Embedder:
        if self._given_embedder is not None:
            return self._given_embedder
        return load_embedder(self.config, recorded_model)

    async def embed_query(self, query: str) -> Vectors:
        """The query vector recall and search use, embedded on the query thread."""
        embedder = self.embedder
        vectors = await in_thread(lambda: embedder.embed([query]), pool=self._query_pool)
        query_vector: Vectors = fit(vectors, 1, embedder.dim, embedder.model_id)[0]
        return query_vector

    async def _embed_batch(self, texts: list[str]) -> Vectors:
        """Vectors for the indexer, a few texts per call: close() waits for one call only."""
        embedder = self.embedder
        parts = []
        for start in range(0, len(texts), _INDEX_CHUNK):
            chunk = texts[start : start + _INDEX_CHUNK]
            vectors = await in_thread(partial(embedder.embed, chunk), pool=self._index_pool)
            parts.append(fit(vectors, len(chunk), embedder.dim, embedder.model_id))
        return np.concatenate(parts)

    # --- sleep: consolidation into states and events -----------------------------------

    def sleeper(
        self, *, http: httpx.AsyncClient | None = None, gate: UpstreamGate | None = None
    ) -> Sleeper:
        """A consolidator on this memory's file; a server passes its shared client and gate.

        ``SleepScheduler(mem.sleeper(http=client, gate=gate), mem.config)`` runs it in
        the background of the server's event loop.
        """
        db = self._opened()
        return Sleeper(db.reader, db.writer, self._embed_batch, self.config, http=http, gate=gate)

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
        return await list_facts(db.reader, check_space(space), include_history=include_history)

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
        state_id = await db.writer.submit(
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
        await db.writer.submit(lambda conn: forget_state(conn, space, state_id))
        return await self._state(space, state_id, released=True)

    async def _state(self, space: str, state_id: int, *, released: bool = False) -> State:
        found = await state_by_id(self._opened().reader, space, state_id, released=released)
        if found is None:  # removed in between, e.g. by a redo in another process
            raise OrmaError(f"state #{state_id} of space {space!r} is gone")
        return found

    # --- forgetting on request and portability (orma_proxy/forget, orma_proxy/portable) --

    async def supersede(
        self, old: str | int, new: str, space: str = DEFAULT_SPACE, *, dry_run: bool = False
    ) -> ForgetResult:
        """Correct a fact: what says ``old`` (a text, or a state id) gives way to ``new``.

        ``new`` is stored as a note. Recall never shows the old lines again nor
        returns the old value as current; ``facts(include_history=True)`` keeps it.
        """
        db = self._opened()
        if not isinstance(old, int) or isinstance(old, bool):
            old = check_text(old, "old").strip()
        new, space = check_text(new, "new"), check_space(space)
        result = await supersede(db, old, new, space, self.config, dry_run=dry_run)
        assert self._indexer is not None
        self._indexer.notify()
        return result

    async def release(
        self,
        query: str,
        space: str = DEFAULT_SPACE,
        *,
        threshold: float | None = None,
        max_items: int | None = None,
        dry_run: bool = False,
    ) -> ForgetResult:
        """Stop recalling a topic: what is near ``query`` in meaning or holds all its words.

        Nothing is deleted; ``unrelease(result.release_id)`` brings it all back.
        """
        db = self._opened()
        query, space = check_text(query, "query"), check_space(space)
        threshold = self.config.release_threshold if threshold is None else threshold
        max_items = self.config.release_max_items if max_items is None else max_items
        if not -1.0 <= threshold <= 1.0 or max_items < 1:
            raise InputError("threshold must lie in [-1, 1] and max_items be at least 1")
        await self.flush()  # a sentence without its vector could not be judged by meaning
        vector = await self.embed_query(query[: self.config.max_query_chars])
        return await release(
            db, query, vector, space, threshold=threshold, max_items=max_items, dry_run=dry_run
        )

    async def unrelease(self, release_id: int, space: str = DEFAULT_SPACE) -> ForgetResult:
        """Undo release ``release_id``: its passages, states and events are recalled again."""
        if isinstance(release_id, bool) or not isinstance(release_id, int):
            raise InputError(f"release_id must be an integer, not {release_id!r}")
        return await unrelease(self._opened(), release_id, check_space(space))

    async def purge(
        self,
        query_or_ids: str | Iterable[int],
        space: str = DEFAULT_SPACE,
        *,
        dry_run: bool = False,
    ) -> ForgetResult:
        """Erase the episodes containing a text (or with these ids), down to the file's bytes.

        Their sentences, index entries, vectors and every state and event drawn
        from them go too. Irreversible; audited by ids and counts, never the text.
        """
        db = self._opened()
        target: str | list[int]
        if isinstance(query_or_ids, str):
            target = check_text(query_or_ids, "query")
        else:
            target = list(query_or_ids)
            if not target or any(isinstance(i, bool) or not isinstance(i, int) for i in target):
                raise InputError("purge takes a text or a non-empty list of episode ids")
        assert self._access is not None
        await self._access.flush()  # no queued access row may name a purged item afterwards
        return await purge(db, target, check_space(space), self.config, dry_run=dry_run)

    async def audit(self, space: str | None = None, limit: int | None = None) -> list[AuditEntry]:
        """Audited supersedes, releases, unreleases and purges, newest first."""
        space = None if space is None else check_space(space)
        return await read_audit(self._opened().reader, space, limit)

    async def export_jsonl(
        self, target: str | Path | TextIO, space: str | None = None
    ) -> dict[str, int]:
        """Write the ``orma-export`` JSON Lines of one space (or all); returns record counts."""
        db = self._opened()
        space = None if space is None else check_space(space)
        out = Path(target) if isinstance(target, str | Path) else target
        timeout = self.config.busy_timeout_ms
        return await in_thread(lambda: export_to(db.path, out, space, busy_timeout_ms=timeout))

    async def import_jsonl(self, source: str | Path | TextIO) -> int:
        """Load an ``orma-export`` file into this (empty) memory; returns the records written."""
        db = self._opened()
        given = Path(source) if isinstance(source, str | Path) else source
        records = await in_thread(lambda: read_export(given))
        count = await db.writer.execute_write_fn(lambda conn: import_records(conn, records))
        assert self._indexer is not None
        self._indexer.notify()
        return count

    async def rebuild(self) -> RebuildReport:
        """Re-derive sentences, FTS, vectors and the entity graph from the episodes."""
        report = await rebuild(self._opened(), self.config)
        assert self._indexer is not None
        self._indexer.notify()
        return report

    async def backup(self, target: str | Path) -> int:
        """A consistent copy of the database at ``target`` while it is in use; returns its size."""
        db, timeout = self._opened(), self.config.busy_timeout_ms
        return await in_thread(lambda: backup(db.path, Path(target), busy_timeout_ms=timeout))
