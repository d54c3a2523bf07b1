"""What one sleep did, in numbers and with every refusal explained.

A ``SleepReport`` is what ``AsyncMemory.sleep()`` returns and what ``orma sleep``
prints; the scheduler logs one per run. Rejections carry their reason so a
user can see why the model's claim was not believed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

RejectedKind = Literal["state", "event", "name"]

# Counters of SleepReport that add up across spaces.
_SUMMED = (
    "batches",
    "episodes",
    "states_added",
    "states_superseded",
    "states_rehearsed",
    "states_ended",
    "events_added",
    "pending_episodes",
    "tries_failed",
)


@dataclass(frozen=True)
class Rejection:
    """One extracted item that verification refused."""

    kind: RejectedKind
    line: str
    item: dict[str, Any]
    reason: str

    def __str__(self) -> str:
        return f"{self.kind} {self.item} on {self.line!r}: {self.reason}"


@dataclass
class BatchOutcome:
    """The counts of one applied batch (filled in by ``apply``)."""

    states_added: int = 0
    states_superseded: int = 0
    states_rehearsed: int = 0
    states_ended: int = 0
    events_added: int = 0
    rejections: list[Rejection] = field(default_factory=list)


@dataclass
class SleepReport:
    """The totals of one ``sleep()`` over one or more spaces."""

    spaces: list[str] = field(default_factory=list)
    batches: int = 0
    episodes: int = 0
    states_added: int = 0
    states_superseded: int = 0
    states_rehearsed: int = 0
    states_ended: int = 0
    events_added: int = 0
    rejected: list[Rejection] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    extractors: list[str] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)  # applied batches by outcome
    notes: list[str] = field(default_factory=list)  # fallbacks to the rules, and why
    tries_failed: int = 0  # LLM tries that failed (each left its batch pending, then retried)
    llm_seconds: float = 0.0
    pending_episodes: int = 0

    @property
    def states_rejected(self) -> int:
        return sum(1 for r in self.rejected if r.kind != "event")

    def add_batch(self, episodes: int, outcome: BatchOutcome) -> None:
        """Fold one applied batch into the totals."""
        self.batches += 1
        self.episodes += episodes
        self.states_added += outcome.states_added
        self.states_superseded += outcome.states_superseded
        self.states_rehearsed += outcome.states_rehearsed
        self.states_ended += outcome.states_ended
        self.events_added += outcome.events_added
        self.rejected.extend(outcome.rejections)

    def note_extractor(self, name: str) -> None:
        if name not in self.extractors:
            self.extractors.append(name)

    def note_outcome(self, outcome: str) -> None:
        """One applied batch extracted as ``outcome`` (llm, rules, rules-fallback...)."""
        self.note_extractor(outcome)
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    def merge(self, other: SleepReport) -> None:
        """Add another space's report to this one."""
        for name in _SUMMED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.llm_seconds += other.llm_seconds
        self.spaces.extend(other.spaces)
        self.rejected.extend(other.rejected)
        self.errors.extend(other.errors)
        self.skipped.extend(other.skipped)
        self.notes.extend(other.notes)
        for name in other.extractors:
            self.note_extractor(name)
        for outcome, count in other.outcomes.items():
            self.outcomes[outcome] = self.outcomes.get(outcome, 0) + count

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["states_rejected"] = self.states_rejected
        return data

    def __str__(self) -> str:
        how = ", ".join(f"{name} {self.outcomes.get(name, 0)}" for name in self.extractors)
        if self.tries_failed:
            how = f"{how}, " if how else ""
            how += f"{self.tries_failed} LLM tries failed"
        lines = [
            f"sleep: {self.batches} batches, {self.episodes} episodes "
            f"({how or 'nothing to do'}); "
            f"states +{self.states_added} superseded {self.states_superseded} "
            f"rehearsed {self.states_rehearsed} ended {self.states_ended} "
            f"rejected {self.states_rejected}; events +{self.events_added}; "
            f"LLM {self.llm_seconds:.1f}s; {self.pending_episodes} episodes still pending"
        ]
        lines += [f"  note: {n}" for n in self.notes]
        lines += [f"  rejected {r}" for r in self.rejected]
        lines += [f"  error: {e}" for e in self.errors]
        lines += [f"  skipped: {s}" for s in self.skipped]
        return "\n".join(lines)
