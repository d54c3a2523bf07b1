"""A noise floor for vector hits that needs no sentences of the space: the query's own.

The space's floor (``store/noise.py``) is a percentile of similarities between its
own sentences, so it needs a few dozen of them before it means anything; below
``noise_floor_min_sentences`` there is none, and in a space of five notes every
one of them is a vector hit for any query ("PIN" finds "I like hiking in the
Western Ghats."). This floor asks instead how similar the query is to sentences
about nothing in particular: ``BACKGROUND``, forty plain statements on unrelated
everyday subjects, embedded once per model (and kept in the user's cache,
``embed/fixed.py``, so a new process reads them). A vector hit must pass the
``noise_floor_background_quantile`` of the query's similarities to those, plus
``noise_floor_background_margin`` times that quantile's distance above their
median: a floor in the model's own units (MiniLM puts unrelated pairs near 0.1,
bge-small near 0.5), higher for a broad query that is near everything. The higher
of the two floors applies.

On ``bench.block``'s cases (MiniLM), of the lines a query should bring that only
the vectors find, 63 of 66 pass this floor (quantile 0.9, margin 0.5), and 558 of
the 892 unwanted ones (margin 1: 61 and 356; LoCoMo's search then loses one
evidence turn at R@10, so 0.5 is the default). A vector hit under the floor still
ranks a sentence the query's words found (``search._above``). The block's topic test
(``recall/relevance.py``) asks the same floor with its own margin, ``recall_topic_margin``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import numpy as np

from orma_proxy.embed.base import Vectors

__all__ = ["BACKGROUND", "BackgroundFloor", "QueryFloor"]

QueryFloor = Callable[[Vectors, float], Awaitable[float]]  # (query vector, margin) -> floor
EmbedTexts = Callable[[list[str]], Awaitable[Vectors]]

BACKGROUND = (
    "The committee postponed the vote until the spring session.",
    "Copper wire conducts electricity with very little loss.",
    "The recipe calls for two cups of flour and a pinch of salt.",
    "Glaciers carve deep valleys over thousands of years.",
    "The striker scored twice in the second half of the match.",
    "A firmware update fixed the bug in the printer driver.",
    "The museum opened a new wing for medieval tapestries.",
    "Interest rates rose for the third quarter in a row.",
    "The orchestra tuned their instruments before the overture.",
    "Heavy fog delayed several flights at the regional airport.",
    "The novel follows three sisters across two continents.",
    "Bees communicate the location of flowers through a dance.",
    "The council approved funding for a new cycle lane.",
    "Volcanic soil is rich in minerals that crops need.",
    "The spreadsheet totals each column at the bottom of the sheet.",
    "An old lighthouse stands at the end of the rocky pier.",
    "The chess tournament ended in a three-way tie.",
    "Solar panels produce less power on cloudy afternoons.",
    "The bakery on the corner sells rye bread on weekends.",
    "A comet passes close to the sun once every seventy years.",
    "The contract must be signed by both parties before Friday.",
    "Wolves were reintroduced to the national park in the nineties.",
    "The train to the coast leaves from platform four.",
    "Vaccines train the immune system to recognise a virus.",
    "The gallery hung the paintings in chronological order.",
    "Rust forms when iron reacts with oxygen and water.",
    "The startup raised money to expand into new markets.",
    "A sudden storm flooded the lower streets of the town.",
    "The choir rehearses every Thursday evening in the church hall.",
    "Most smartphones now charge over a USB-C cable.",
    "The treaty ended a war that had lasted a decade.",
    "Octopuses can change the colour and texture of their skin.",
    "The library extended its opening hours during exams.",
    "Marathon runners often slow down after the thirtieth kilometre.",
    "The database query returned an empty result set.",
    "Tea plantations cover the hills above the small village.",
    "The documentary explains how coral reefs are formed.",
    "Farmers harvest the grapes in early autumn.",
    "The bridge was closed for repairs to its steel cables.",
    "Ancient traders carried silk and spices along desert routes.",
)


class BackgroundFloor:
    """``await background(query_vector, quantile, margin)``: the query's floor.

    The query's similarity to the background at ``quantile``, plus ``margin``
    times that quantile's distance above the background's median. ``embed``
    embeds the background the first time, and again whenever ``model()`` names
    another model; the vectors are unit length, so a dot product is the cosine.
    """

    def __init__(self, embed: EmbedTexts, model: Callable[[], str]) -> None:
        self._embed = embed
        self._model = model
        self._vectors: tuple[str, Vectors] | None = None
        self._lock = asyncio.Lock()

    async def __call__(self, query: Vectors, quantile: float, margin: float) -> float:
        model = self._model()
        if self._vectors is None or self._vectors[0] != model:
            async with self._lock:
                if self._vectors is None or self._vectors[0] != model:
                    self._vectors = (model, await self._embed(list(BACKGROUND)))
        sims = self._vectors[1] @ np.asarray(query, dtype=np.float32)
        high, median = np.quantile(sims, [quantile, 0.5])
        return float(high + margin * (high - median))
