"""One consolidation run: lease a space, then batch, extract, verify, merge names, apply.

The ``Sleeper`` is what ``AsyncMemory.sleep()`` and the ``SleepScheduler`` both
drive. It takes the database's reader and writer and an embedding function,
never the ``AsyncMemory`` itself, so data flows one way (sleep -> store). The
LLM is optional: without a reachable upstream the rule-based extractor
proposes, and the same verification and apply steps follow.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING

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
from orma_proxy.offload import in_thread
from orma_proxy.sleep import batch as batches
from orma_proxy.sleep import lease
from orma_proxy.sleep.apply import BatchRun, apply_batch, record_failure
from orma_proxy.sleep.clock import zone
from orma_proxy.sleep.extract import (
    EXTRACTION_SCHEMA,
    SYSTEM_PROMPT,
    Extraction,
    line_room,
    parse_extraction,
    user_prompt,
)
from orma_proxy.sleep.gate import UpstreamGate
from orma_proxy.sleep.heuristic import extract_by_rules
from orma_proxy.sleep.manual import reset_keeping_rules
from orma_proxy.sleep.names import EmbedTexts, NameMerger, value_key
from orma_proxy.sleep.relations import relations_said
from orma_proxy.sleep.report import SleepReport
from orma_proxy.sleep.retry import Clock, RealClock, TryPlan, plan_try
from orma_proxy.sleep.verify import Verified, VerifiedState, Verifier
from orma_proxy.store import DatabaseError, Reader, Writer, backlogs, batch_tries, episode_spaces

if TYPE_CHECKING:  # httpx and the LLM client load when a sleep runs, not with the memory
    import httpx

    from orma_proxy.sleep.llm import LLMClient

log = logging.getLogger(__name__)

# How an applied batch was extracted (``sleep_batches.extractor``, ``orma stats``).
LLM = "llm"
RULES = "rules"  # no LLM configured or reachable
RULES_FALLBACK = "rules-fallback"  # the LLM failed this batch (or an earlier one of the run)
RULES_LLM_EMPTY = "rules-llm-empty"  # the LLM answered, but nothing it proposed was verified


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
        clock: Clock | None = None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._embed = embed
        self._config = config
        self._http = http
        self.gate = gate
        self._clock = clock or RealClock()

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
            run = _Run(await self._llm(http, model, report))
            for name in spaces:
                report.merge(await self._space(name, run, redo))
        return report

    @contextlib.asynccontextmanager
    async def _client(self) -> AsyncIterator[httpx.AsyncClient]:
        if self._http is not None:
            yield self._http
            return
        import httpx

        async with httpx.AsyncClient() as http:
            yield http

    async def _llm(
        self, http: httpx.AsyncClient, model: str | None, report: SleepReport
    ) -> LLMClient | None:
        """A client for a reachable upstream, or None (then rules extract)."""
        if not self._config.upstream.strip():
            return None
        from orma_proxy.sleep.llm import LLMClient

        client = LLMClient(http, self._config, model=model, gate=self.gate)
        try:
            await client.probe()
        except UpstreamUnavailableError as exc:
            log.info("sleep without an LLM: %s", exc)
            report.skipped.append(f"LLM not used: {exc}")
            return None
        return client

    async def _space(self, space: str, run: _Run, redo: bool) -> SleepReport:
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
                done = await self._consolidate(work, run, holder, report)
                if done is None:
                    break
                after = done
        finally:
            await lease.release(self._writer, space, holder)
        report.pending_episodes = (await batches.pending(self._reader, space))[0]
        return report

    async def _next_batch(self, space: str, after: int) -> batches.Batch | None:
        return await self._reader.execute_fn(
            lambda conn: batches.next_batch(conn, space, after, self._config)
        )

    async def _consolidate(
        self, work: batches.Batch, run: _Run, holder: str, report: SleepReport
    ) -> int | None:
        """Consolidate ``work``, or its first episodes; the last episode done, None to stop.

        With an LLM: tries by the retry policy (backoff, halves, a request budget),
        then the rules when the budget is spent. A failed try is recorded and
        retried here after its backoff; a failure to apply stops the space.
        """
        if run.llm is None:
            return await self._by_rules(work, run.rules_outcome, holder, report)
        while True:
            plan = await self._plan(work)
            if plan.left <= 0:
                run.give_up(
                    f"{plan.spent} LLM requests failed on episodes "
                    f"{work.episode_ids[0]}..{work.last_episode_id} (last: {run.last_error})"
                )
                report.notes.append(f"space {work.space!r}: {run.gave_up}; rules from here on")
                return await self._by_rules(work, run.rules_outcome, holder, report)
            if plan.wait > 0:
                log.info(
                    "sleep: %d LLM tries in a row failed; next in %.0f s", plan.failures, plan.wait
                )
                await self._clock.wait(plan.wait)
                seconds = self._config.sleep_lease_seconds
                if not await lease.acquire(self._writer, work.space, holder, seconds):
                    report.errors.append(f"space {work.space!r}: lost the lease")
                    return None
            part = work.head(plan.episodes)
            try:
                extraction, step = await self._extract(part, run.llm, holder, plan.left)
            except UpstreamUnavailableError as exc:
                log.info("upstream went away, rules extract this batch: %s", exc)
                return await self._by_rules(part, RULES_FALLBACK, holder, report)
            except _TryFailed as failed:
                run.last_error = failed.error
                report.tries_failed += 1
                hint = run.llm.overflow_hint(failed.error)
                if hint and hint not in report.notes:
                    report.notes.append(hint)
                    log.warning("sleep: %s", hint)
                report.llm_seconds += failed.run.llm_seconds
                log.info("sleep: an LLM try failed: %s", failed.error)
                await self._record_failure(part, failed.run, failed.error)
                continue
            report.llm_seconds += step.llm_seconds
            return await self._by_llm(part, extraction, step, report)

    async def _plan(self, work: batches.Batch) -> TryPlan:
        """The retry policy's next step for ``work``, from the space's batch log."""
        now = self._clock.now()
        since = now - self._config.sleep_attempt_window_seconds
        history = await self._reader.execute_fn(lambda conn: batch_tries(conn, work.space, since))
        return plan_try(history, work.episode_ids[0], work.episode_ids, now, self._config)

    async def _record_failure(self, work: batches.Batch, run: BatchRun, error: str) -> None:
        now = self._clock.now()
        await self._writer.execute_write_fn(
            lambda conn: record_failure(conn, work, run, error, now)
        )

    async def _by_llm(
        self, work: batches.Batch, extraction: Extraction, run: BatchRun, report: SleepReport
    ) -> int | None:
        """Verify and apply the LLM's proposals; the rules' facts when none is verified."""
        try:
            verified = await self.verify(work, extraction)
        except SleepError as exc:
            await self._fail(work, run, str(exc), report)
            return None
        if not (verified.states or verified.events) and self._config.sleep_rules_when_llm_empty:
            try:
                by_rules = await self.verify(work, await in_thread(lambda: extract_by_rules(work)))
            except SleepError as exc:
                await self._fail(work, run, str(exc), report)
                return None
            if by_rules.states or by_rules.events:
                facts = len(by_rules.states) + len(by_rules.events)
                report.notes.append(
                    f"space {work.space!r}: episodes {work.episode_ids[0]}.."
                    f"{work.last_episode_id}: nothing the LLM proposed was verified "
                    f"({len(verified.rejections)} rejected); kept the rules' {facts} facts"
                )
                rejections = verified.rejections + by_rules.rejections
                verified = Verified(by_rules.states, by_rules.events, rejections)
                run = replace(run, extractor=RULES_LLM_EMPTY)
        return await self._apply(work, verified, run, report)

    async def _by_rules(
        self, work: batches.Batch, outcome: str, holder: str, report: SleepReport
    ) -> int | None:
        run = BatchRun(holder, outcome, 0, 0.0)
        try:
            verified = await self.verify(work, await in_thread(lambda: extract_by_rules(work)))
        except SleepError as exc:
            await self._fail(work, run, str(exc), report)
            return None
        return await self._apply(work, verified, run, report)

    async def _apply(
        self, work: batches.Batch, verified: Verified, run: BatchRun, report: SleepReport
    ) -> int | None:
        """Write one verified batch; its last episode, or None (left pending) on failure."""
        try:
            verified = await self.with_relations(work, verified)
        except SleepError as exc:
            await self._fail(work, run, str(exc), report)
            return None
        try:
            outcome = await self._writer.execute_write_fn(
                lambda conn: apply_batch(conn, work, verified, run, self._config)
            )
        except SleepError as exc:
            await self._fail(work, run, str(exc), report)
            return None
        except (StoreError, DatabaseError) as exc:  # the transaction rolled back whole
            log.warning("applying a sleep batch failed, left pending: %s", exc)
            await self._fail(work, run, f"apply failed: {exc}", report)
            return None
        report.note_outcome(run.extractor)
        report.add_batch(len(work.episode_ids), outcome)
        return work.last_episode_id

    async def with_relations(self, work: batches.Batch, verified: Verified) -> Verified:
        """``verified`` with the relations the lines name ("my sister Asha") it lacks."""
        said = await in_thread(lambda: relations_said(work))
        if not said.states:
            return verified
        found = await self.verify(work, said)
        have = {_fact_key(s) for s in verified.states}
        # Asha was the user's sister before the line's "last year": the line's time is not hers.
        extra = [
            replace(s, since=None, valid_from=s.line.said_at)
            for s in found.states
            if _fact_key(s) not in have
        ]
        if not extra:
            return verified
        states = sorted([*verified.states, *extra], key=lambda s: (s.line.said_at, s.line.number))
        return Verified(states, verified.events, verified.rejections)

    async def _extract(
        self, work: batches.Batch, llm: LLMClient, holder: str, budget: int
    ) -> tuple[Extraction, BatchRun]:
        """One LLM call per chunk of lines, within ``budget`` requests; raises ``_TryFailed``."""
        tz = zone(self._config.timezone)
        merged = Extraction()
        before, seconds = llm.requests, 0.0

        def spent() -> BatchRun:
            return BatchRun(holder, LLM, llm.requests - before, seconds)

        room = line_room(await llm.context_window(), self._config.sleep_max_tokens)
        numbered = [line.numbered(tz) for line in work.lines]
        for lines in batches.fitted(numbered, self._config.sleep_batch_lines, room):
            prompt = user_prompt(lines)
            left = budget - (llm.requests - before)
            if left <= 0:
                raise _TryFailed(spent(), "the request budget ran out before the last chunk")
            started = time.monotonic()
            try:
                answer = await llm.complete_json(
                    SYSTEM_PROMPT, prompt, EXTRACTION_SCHEMA, max_requests=left
                )
                part = parse_extraction(answer.text)
            except ExtractionError as exc:
                seconds += time.monotonic() - started
                raise _TryFailed(spent(), str(exc)) from exc
            seconds += answer.seconds
            merged.states += part.states
            merged.events += part.events
            merged.malformed += part.malformed
            merged.user_name = part.user_name or merged.user_name
        return merged, spent()

    async def verify(self, work: batches.Batch, extraction: Extraction) -> Verified:
        """What of ``extraction`` the batch's own lines bear out, named as the space names it."""
        tz = zone(self._config.timezone)
        user_name = await self._known_user_name(work.space)
        verifier = Verifier(work, self._config, self._embed, tz)
        # Checking thousands of proposals (a long paste read by rules) is CPU work: its own
        # loop in a worker thread; the embedder it awaits runs in the embedder's own pool.
        verified = await in_thread(
            lambda: asyncio.run(verifier.run(extraction, user_name=user_name))
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
    ) -> None:
        message = (
            f"space {work.space!r}: episodes {work.episode_ids[0]}..{work.last_episode_id} "
            f"left pending: {error}"
        )
        report.errors.append(message)
        await self._record_failure(work, run, error)
        return None


class _TryFailed(Exception):
    """An LLM try that gave no usable answer: what it cost, and why."""

    def __init__(self, run: BatchRun, error: str) -> None:
        super().__init__(error)
        self.run = run
        self.error = error


class _Run:
    """One ``sleep()``'s use of the LLM: given up after a batch spent its budget."""

    def __init__(self, llm: LLMClient | None) -> None:
        self.llm = llm
        self.rules_outcome = RULES
        self.last_error = ""
        self.gave_up = ""

    def give_up(self, why: str) -> None:
        self.llm = None
        self.rules_outcome = RULES_FALLBACK
        self.gave_up = why


def _fact_key(state: VerifiedState) -> tuple[str, str, str]:
    return (state.entity.lower(), state.attribute, value_key(state.value))
