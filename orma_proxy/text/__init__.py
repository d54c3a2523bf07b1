"""Turning raw text and files into sentences Orma can index and cite.

Also the word lists every package must agree on: names (``names_in``), words
that carry no meaning (``STOPWORDS``), CJK character pairs (``cjk_grams``), the
plain-English kinds of fact (``groups_of``), identifiers in any spelling
(``find_identifiers``), the date terms of a line or a query (``date_terms``,
``query_dates``), how a rule is said (``read_rule``) and whether a sentence
asserts anything at all (``unasserted``: not a question, guess or wish), whether
a value is wanted rather than had (``sought``), whether a state is of the
moment (``passing``: a feeling, the weather, a reaction), whether a value says
anything alone (``unresolved``: no "there" without its place; ``lead_in``: not
"I had a great time"), whether a phrase is a feeling towards something (``felt``)
and what a line says that the facts drawn from it do not (``unsaid``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orma_proxy.exports import lazy_exports

if TYPE_CHECKING:
    from orma_proxy.text.abbreviations import expanded, in_full
    from orma_proxy.text.attributes import (
        SHARED_ATTRIBUTES,
        STATE_ATTRIBUTES,
        evidence_of,
        group_stems,
        groups_of,
        kinds_by_shape,
        kinds_shown,
        state_attributes,
        stem,
        stems,
    )
    from orma_proxy.text.dates import (
        DATES_SQL_FUNCTION,
        QueryDates,
        date_terms,
        date_terms_or_none,
        finest_terms,
        query_dates,
    )
    from orma_proxy.text.files import TEXT_SUFFIXES, FilePiece, check_text_file, read_pieces
    from orma_proxy.text.fragments import lead_in, unresolved
    from orma_proxy.text.grams import SQL_FUNCTION, cjk_grams, has_cjk, query_grams
    from orma_proxy.text.identifiers import PREFIX_CHARS, Identifier, find_identifiers, same, starts
    from orma_proxy.text.lasting import passing
    from orma_proxy.text.moods import Mood, felt, mood, sought, standing, unasserted
    from orma_proxy.text.names import NOT_NAMES, clean_name, names_in
    from orma_proxy.text.prohibitions import Prohibition, encourages, read_rule, said_rule
    from orma_proxy.text.segment import Segment, split_sentences
    from orma_proxy.text.speaker import leading_speaker, split_said
    from orma_proxy.text.stand_in import unsaid
    from orma_proxy.text.stopwords import STOPWORDS

__all__ = [
    "DATES_SQL_FUNCTION",
    "NOT_NAMES",
    "PREFIX_CHARS",
    "SHARED_ATTRIBUTES",
    "SQL_FUNCTION",
    "STATE_ATTRIBUTES",
    "STOPWORDS",
    "TEXT_SUFFIXES",
    "FilePiece",
    "Identifier",
    "Mood",
    "Prohibition",
    "QueryDates",
    "Segment",
    "check_text_file",
    "cjk_grams",
    "clean_name",
    "date_terms",
    "date_terms_or_none",
    "encourages",
    "evidence_of",
    "expanded",
    "felt",
    "find_identifiers",
    "finest_terms",
    "group_stems",
    "groups_of",
    "has_cjk",
    "in_full",
    "kinds_by_shape",
    "kinds_shown",
    "lead_in",
    "leading_speaker",
    "mood",
    "names_in",
    "passing",
    "query_dates",
    "query_grams",
    "read_pieces",
    "read_rule",
    "said_rule",
    "same",
    "sought",
    "split_said",
    "split_sentences",
    "standing",
    "starts",
    "state_attributes",
    "stem",
    "stems",
    "unasserted",
    "unresolved",
    "unsaid",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "SHARED_ATTRIBUTES": "attributes",
        "STATE_ATTRIBUTES": "attributes",
        "evidence_of": "attributes",
        "group_stems": "attributes",
        "groups_of": "attributes",
        "kinds_by_shape": "attributes",
        "kinds_shown": "attributes",
        "expanded": "abbreviations",
        "in_full": "abbreviations",
        "state_attributes": "attributes",
        "stem": "attributes",
        "stems": "attributes",
        "DATES_SQL_FUNCTION": "dates",
        "QueryDates": "dates",
        "date_terms": "dates",
        "date_terms_or_none": "dates",
        "finest_terms": "dates",
        "query_dates": "dates",
        "TEXT_SUFFIXES": "files",
        "FilePiece": "files",
        "check_text_file": "files",
        "read_pieces": "files",
        "lead_in": "fragments",
        "unresolved": "fragments",
        "SQL_FUNCTION": "grams",
        "cjk_grams": "grams",
        "has_cjk": "grams",
        "query_grams": "grams",
        "PREFIX_CHARS": "identifiers",
        "Identifier": "identifiers",
        "find_identifiers": "identifiers",
        "same": "identifiers",
        "starts": "identifiers",
        "Mood": "moods",
        "felt": "moods",
        "mood": "moods",
        "sought": "moods",
        "standing": "moods",
        "unasserted": "moods",
        "NOT_NAMES": "names",
        "clean_name": "names",
        "names_in": "names",
        "Prohibition": "prohibitions",
        "encourages": "prohibitions",
        "read_rule": "prohibitions",
        "said_rule": "prohibitions",
        "Segment": "segment",
        "split_sentences": "segment",
        "passing": "lasting",
        "unsaid": "stand_in",
        "leading_speaker": "speaker",
        "split_said": "speaker",
        "STOPWORDS": "stopwords",
    },
)
