"""How the block reads: the original Orma's Sutra lines, or classic prose sections.

Sutra (``enable_sutra_packing``, the default) packs each item into one
bracketed line a small model reads like code, and spends no tokens on
section titles::

    [FORBIDDEN: chain PowerShell commands with semicolons]
    [PREFER: put each command on its own line]
    [user.home city: Bangalore (since 2026-10-17)]
    [user.morning drink | cond: sore throat -> warm ginger tea with raw honey]
    [EVENT: 2026-11-01: user received a gift from manager: Swiss knife]
    [LOG: 2026-10-10 user: I'm Sahil and I live in Pune. [outdated: now Bangalore]]

Classic writes the same items as bullet lists under "Forbidden", "Now true",
"Events" and "Things said before". The default is Sutra although the
original's zh table lists ``False``: every example the original shows, its
token benchmark and its MCP description use Sutra, and it is what the issue
asks for; classic stays one switch away.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from orma_proxy.recall.search import Passage
from orma_proxy.recall.states import Event, State

# The original Orma's header (74 MiniLM tokens), kept byte for byte with
# ``compact_header=False``.
HEADER = (
    "## Memory\n"
    "What you remember about the person you are talking to, from earlier conversations, "
    "notes and documents. Answer directly using these facts and statements without asking "
    "the user to re-confirm details already provided here; do not mention this list. "
    "A line marked [outdated] was true when it was said and has changed since. "
    "Today is {today}."
)
FORBIDDEN_NOTE = (
    " Lines marked [FORBIDDEN: ...] are strict negative constraints: you must NEVER "
    "suggest, mention, or take what is forbidden."
)
CLASSIC_FORBIDDEN_NOTE = (
    " Lines under Forbidden are strict negative constraints: you must NEVER "
    "suggest, mention, or take what is forbidden."
)
# The default header (36 tokens): every turn pays for it, so it says only what
# the model needs, and explains a marker only when a line in the block has it.
COMPACT_HEADER = (
    "## Memory (today {today})\n"
    "What you know about the user from past chats: use it directly, never re-ask "
    "or mention this list."
)
COMPACT_OUTDATED_NOTE = " A line marked [outdated] is no longer true."
COMPACT_FORBIDDEN_NOTE = " Never suggest, mention or do anything marked [FORBIDDEN]."
COMPACT_CLASSIC_FORBIDDEN_NOTE = " Never suggest, mention or do anything under Forbidden."
# Said only when a rule's alternative is shown (never inside the prohibition).
PREFER_NOTE = " Do what [PREFER] says instead."
CLASSIC_PREFER_NOTE = " Do what a rule's 'instead:' says."
SECTIONS = ("rules", "states", "events", "passages")
CLASSIC_TITLES = {
    "rules": "Forbidden:",
    "states": "Now true:",
    "events": "Events:",
    "passages": "Things said before:",
}


def attribute_name(attribute: str) -> str:
    return attribute.replace("_", " ")


def outdated_mark(replaced_by: tuple[str, ...]) -> str:
    """``[outdated: now Bangalore]``; ``[outdated]`` for a fact that ended unreplaced."""
    if not replaced_by:
        return ""
    now = "; ".join(f"now {value}" for value in dict.fromkeys(replaced_by) if value)
    return f" [outdated: {now}]" if now else " [outdated]"


def speaker_label(passage: Passage) -> str:
    """Who said a line: its speaker's name, and the assistant's lines say they are its own.

    "assistant (Mel)" for a reply said under a name (the message's ``name``): a
    model must not read the assistant's words as the user's, nor as a third person's.
    """
    if passage.role == "assistant":
        return f"assistant ({passage.speaker})" if passage.speaker else "assistant"
    return passage.speaker or passage.role


@dataclass(frozen=True)
class Layout:
    """Line formats and framing of one style of block."""

    sutra: bool
    compact: bool = True

    def header(
        self, today: date, *, rules: bool, outdated: bool = True, instead: bool = False
    ) -> str:
        """The framing; ``outdated``: whether a line carries an ``[outdated]`` mark,
        ``instead``: whether a rule's alternative is shown."""
        prefer = (PREFER_NOTE if self.sutra else CLASSIC_PREFER_NOTE) if rules and instead else ""
        if not self.compact:
            text = HEADER.format(today=today.isoformat())
            return text + (self.forbidden_note if rules else "") + prefer
        text = COMPACT_HEADER.format(today=today.isoformat())
        return (
            text
            + (COMPACT_OUTDATED_NOTE if outdated else "")
            + (self.forbidden_note if rules else "")
            + prefer
        )

    @property
    def forbidden_note(self) -> str:
        """The header's sentence on forbidden rules, when a rule is shown."""
        if self.compact:
            return COMPACT_FORBIDDEN_NOTE if self.sutra else COMPACT_CLASSIC_FORBIDDEN_NOTE
        return FORBIDDEN_NOTE if self.sutra else CLASSIC_FORBIDDEN_NOTE

    def title(self, section: str) -> str | None:
        """A section's title line (classic only)."""
        return None if self.sutra else CLASSIC_TITLES[section]

    def rule(self, rule: str) -> str:
        return f"[FORBIDDEN: {rule}]" if self.sutra else f"- {rule}"

    def prefer(self, alternative: str) -> str:
        """What the rule above says to do instead."""
        return f"[PREFER: {alternative}]" if self.sutra else f"  instead: {alternative}"

    def state(self, state: State) -> str:
        name = attribute_name(state.attribute)
        since = f" (since {state.since})" if state.since else ""
        if self.sutra:
            if state.condition:
                return f"[{state.entity}.{name} | cond: {state.condition} -> {state.value}]"
            return f"[{state.entity}.{name}: {state.value}{since}]"
        when = f" when {state.condition}" if state.condition else ""
        return f"- {state.entity} · {name}{when}: {state.value}{since}"

    def event(self, event: Event) -> str:
        return f"[EVENT: {event.text}]" if self.sutra else f"- {event.text}"

    def passage(self, passage: Passage, replaced_by: tuple[str, ...] = ()) -> str:
        day = passage.said_at.date().isoformat()
        mark = outdated_mark(replaced_by)
        who = speaker_label(passage)
        if self.sutra:
            return f"[LOG: {day} {who}: {passage.text}{mark}]"
        return f'- {day}, {who}: "{passage.text}"{mark}'

    def titled(self, section: str, lines: list[str]) -> list[str]:
        """A section's lines under its title (none for an empty section)."""
        title = self.title(section)
        return [title, *lines] if lines and title else lines

    def join(self, header: str, sections: dict[str, list[str]]) -> str:
        """The block: header, a blank line, then each non-empty section in order."""
        lines = [line for name in SECTIONS for line in self.titled(name, sections.get(name, []))]
        return header + "\n\n" + "\n".join(lines)
