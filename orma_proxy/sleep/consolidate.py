"""One consolidation run: lease a space, then batch, extract, verify, merge names, apply.

The ``Sleeper`` is what ``AsyncMemory.sleep()`` and the ``SleepScheduler`` both
drive. It takes the database's reader and writer and an embedding function,
never the ``AsyncMemory`` itself, so data flows one way (sleep -> store). The
LLM is optional: without a reachable upstream the rule-based extractor
proposes, and the same verification and apply steps follow.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import replace

import httpx

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import ExtractionError, SleepError, StoreError, UpstreamUnavailableError
from orma_proxy.facts import (
    FORBIDDEN_PREFIX,
    INSTEAD_PREFIX,
    USER,
    current_value,
    known_attributes,
    known_entities,
)
from orma_proxy.sleep import batch as batches
from orma_proxy.sleep import lease
from orma_proxy.sleep.apply import BatchRun, apply_batch, record_failure
from orma_proxy.sleep.clock import zone
from orma_proxy.sleep.extract import (
    EXTRACTION_SCHEMA,
    SYSTEM_PROMPT,
    Extraction,
    parse_extraction,
    user_prompt,
)
from orma_proxy.sleep.gate import UpstreamGate
from orma_proxy.sleep.heuristic import extract_by_rules
from orma_proxy.sleep.llm import LLMClient
from orma_proxy.sleep.manual import reset_keeping_rules
from orma_proxy.sleep.names import EmbedTexts, NameMerger
from orma_proxy.sleep.report import SleepReport
from orma_proxy.sleep.verify import Verified, Verifier
from orma_proxy.store import DatabaseError, Reader, Writer, backlogs, episode_spaces

log = logging.getLogger(__name__)

RULES = "rules"
LLM = "llm"


class Sleeper:
    """Consolidates spaces of one database into states and events."""

    def __init__(
        self,
        reader: Reader,
        writer: Writer,
        embed: EmbedTexts,
        config: OrmaConfig,
        *,
        http: httpx.AsyncClient | None = None,
        gate: UpstreamGate | None = None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._embed = embed
        self._config = config
        self._http = http
        self.gate = gate

    @property
    def reader(self) -> Reader:
        return self._reader

    @property
    def writer(self) -> Writer:
        return self._writer

    @property
    def read_only(self) -> str | None:
        """Why nothing can be consolidated into this file, if it cannot be written."""
        return self._writer.read_only

    async def due_spaces(self, now: float) -> list[str]:
        """Spaces with enough pending episodes, or pending and idle long enough."""
        waiting = await self._reader.execute_fn(backlogs)
        return [w.space for w in waiting if batches.is_due(w, now, self._config)]

    async def sleep(
        self, space: str | None = None, *, model: str | None = None, redo: bool = False
    ) -> SleepReport:
        """Consolidate ``space`` (every space with pending episodes when None)."""
        report = SleepReport()
        if not self._config.enable_semantic:
            report.skipped.append("enable_semantic is off: no states or events are made")
            return report
        if space is None:
            if redo:
                spaces = await self._reader.execute_fn(episode_spaces)
            else:
                spaces = [w.space for w in await self._reader.execute_fn(backlogs)]
        else:
            spaces = [space]
        async with self._client() as http:
            llm = await self._llm(http, model, report)
            for name in spaces:
                report.merge(await self._space(name, llm, redo))
        return report

    @contextlib.asynccontextmanager
    async def _client(self) -> AsyncIterator[httpx.AsyncClient]:
        if self._http is not None:
            yield self._http
            return
        async with httpx.AsyncClient() as http:
            yield http

    async def _llm(
        self, http: httpx.AsyncClient, model: str | None, report: SleepReport
    ) -> LLMClient | None:
        """A client for a reachable upstream, or None (then rules extract)."""
        if not self._config.upstream.strip():
            return None
        client = LLMClient(http, self._config, model=model, gate=self.gate)
        try:
            await client.probe()
        except UpstreamUnavailableError as exc:
            log.info("sleep without an LLM: %s", exc)
            report.skipped.append(f"LLM not used: {exc}")
            return None
        return client

    async def _space(self, space: str, llm: LLMClient | None, redo: bool) -> SleepReport:
        report = SleepReport(spaces=[space])
        holder = lease.new_holder()
        seconds = self._config.sleep_lease_seconds
        if not await lease.acquire(self._writer, space, holder, seconds):
            report.skipped.append(f"space {space!r}: another consolidation is running")
            return report
        try:
            if redo:
                await self._writer.execute_write_fn(
                    lambda conn: reset_keeping_rules(conn, space, self._config)
                )
            after = await batches.watermark(self._reader, space)
            while work := await self._next_batch(space, after):
                if not await lease.acquire(self._writer, space, holder, seconds):
                    report.errors.append(f"space {space!r}: lost the lease")
                    break
                if not await self._batch(work, llm, holder, report):
                    break
                after = work.last_episode_id
        finally:
            await lease.release(self._writer, space, holder)
        report.pending_episodes = (await batches.pending(self._reader, space))[0]
        return report

    async def _next_batch(self, space: str, after: int) -> batches.Batch | None:
        return await self._reader.execute_fn(
            lambda conn: batches.next_batch(conn, space, after, self._config)
        )

    async def _batch(
        self, work: batches.Batch, llm: LLMClient | None, holder: str, report: SleepReport
    ) -> bool:
        """Extract, verify and apply one batch; False (batch left pending) on failure."""
        extractor, attempts, seconds = RULES, 0, 0.0
        extraction: Extraction | None = None
        error = ""
        if llm is not None:
            try:
                extraction, attempts, seconds, error = await self._extract(work, llm)
                extractor = LLM
            except UpstreamUnavailableError as exc:
                log.info("upstream went away, rules extract this batch: %s", exc)
        if extractor == RULES:
            extraction = extract_by_rules(work)
        run = BatchRun(holder, extractor, attempts, seconds)
        report.llm_seconds += seconds
        if extraction is None:
            failure = f"no usable answer after {attempts} attempts: {error}"
            return await self._fail(work, run, failure, report)
        try:
            verified = await self.verify(work, extraction)
            outcome = await self._writer.execute_write_fn(
                lambda conn: apply_batch(conn, work, verified, run, self._config)
            )
        except SleepError as exc:
            return await self._fail(work, run, str(exc), report)
        except (StoreError, DatabaseError) as exc:  # the transaction rolled back whole
            log.warning("applying a sleep batch failed, left pending: %s", exc)
            return await self._fail(work, run, f"apply failed: {exc}", report)
        report.note_extractor(extractor)
        report.add_batch(len(work.episode_ids), outcome)
        return True

    async def _extract(
        self, work: batches.Batch, llm: LLMClient
    ) -> tuple[Extraction | None, int, float, str]:
        """One LLM call per chunk of lines, each retried up to ``sleep_max_attempts``."""
        tz = zone(self._config.timezone)
        merged = Extraction()
        attempts, seconds, error = 0, 0.0, ""
        for chunk in work.chunks(self._config.sleep_batch_lines):
            prompt = user_prompt([line.numbered(tz) for line in chunk])
            for _ in range(self._config.sleep_max_attempts):
                attempts += 1
                try:
                    answer = await llm.complete_json(SYSTEM_PROMPT, prompt, EXTRACTION_SCHEMA)
                    seconds += answer.seconds
                    part = parse_extraction(answer.text)
                except ExtractionError as exc:
                    error = str(exc)
                    log.info("sleep extraction attempt %d failed: %s", attempts, exc)
                    continue
                merged.states += part.states
                merged.events += part.events
                merged.malformed += part.malformed
                merged.user_name = part.user_name or merged.user_name
                break
            else:
                return None, attempts, seconds, error
        return merged, attempts, seconds, error

    async def verify(self, work: batches.Batch, extraction: Extraction) -> Verified:
        """What of ``extraction`` the batch's own lines bear out, named as the space names it."""
        tz = zone(self._config.timezone)
        user_name = await self._known_user_name(work.space)
        verified = await Verifier(work, self._config, self._embed, tz).run(
            extraction, user_name=user_name
        )
        return await self._merge_names(work.space, verified)

    async def _known_user_name(self, space: str) -> str | None:
        return await self._reader.execute_fn(lambda conn: current_value(conn, space, USER, "name"))

    async def _merge_names(self, space: str, verified: Verified) -> Verified:
        """Map attributes and entities onto the names the space already uses."""
        attrs = await self._reader.execute_fn(lambda conn: known_attributes(conn, space))
        people = await self._reader.execute_fn(lambda conn: known_entities(conn, space))
        attribute_merger = NameMerger(self._embed, attrs, self._config.attribute_merge_threshold)
        entity_merger = NameMerger(self._embed, people, self._config.entity_merge_threshold)
        states = []
        for state in verified.states:
            attribute = state.attribute
            if not attribute.startswith((FORBIDDEN_PREFIX, INSTEAD_PREFIX)) and attribute != "name":
                attribute = await attribute_merger.merge(attribute, key=str)
            entity = state.entity
            if entity != USER:
                entity = await entity_merger.merge(entity)
            states.append(replace(state, attribute=attribute, entity=entity))
        events = []
        for event in verified.events:
            who = [p if p == USER else await entity_merger.merge(p) for p in event.who]
            events.append(replace(event, who=tuple(dict.fromkeys(who))))
        return Verified(states, events, verified.rejections)

    async def _fail(
        self, work: batches.Batch, run: BatchRun, error: str, report: SleepReport
    ) -> bool:
        message = (
            f"space {work.space!r}: episodes {work.episode_ids[0]}..{work.last_episode_id} "
            f"left pending: {error}"
        )
        report.errors.append(message)
        await self._writer.execute_write_fn(lambda conn: record_failure(conn, work, run, error))
        return False
