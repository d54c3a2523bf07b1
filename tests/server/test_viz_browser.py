"""A real headless Chromium loads ``/_orma/viz`` from a real server over a seeded memory:
the graph is drawn in WebGL, the search box runs recall and lights the expected node,
and clicking that node shows its citation. The screenshots are kept as artifacts."""

from __future__ import annotations

import asyncio
import colorsys
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from orma_proxy import AsyncMemory
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.chromium import Page, browser, keep
from tests.helpers.rawdb import scalar
from tests.helpers.viz_data import PENDING_NOTE, seeded

# Hue (degrees) of each node kind's colour in viz.js, as shaded spheres keep it.
HUES = {"state": 142, "rule": 348, "conditional": 38, "entity": 188, "event": 255}
BACKGROUND = (7, 11, 20)  # #070b14
PANELS = ("bar", "legend", "side", "drawer", "note", "message")


def panel_boxes(page: Page) -> list[tuple[float, float, float, float]]:
    """Where the page's own panels (legend, side panel, drawer...) cover the canvas."""
    found: list[dict[str, Any]] = page.evaluate(
        f"{list(PANELS)!r}.map(id => document.getElementById(id))"
        ".filter(e => e && !e.hidden).map(e => e.getBoundingClientRect().toJSON())"
    )
    return [(b["left"], b["top"], b["right"], b["bottom"]) for b in found]


def canvas_pixels(shot: Path, covered: list[tuple[float, float, float, float]]) -> list[Any]:
    """The screenshot's pixels that only the WebGL canvas draws (panels masked out)."""
    image = Image.open(shot).convert("RGB")
    width, height = image.size
    pixels = image.load()
    assert pixels is not None
    return [
        pixels[x, y]
        for y in range(0, height, 2)
        for x in range(0, width, 2)
        if not any(
            left <= x <= right and top <= y <= bottom for left, top, right, bottom in covered
        )
    ]


def hue_counts(pixels: list[Any]) -> dict[str, int]:
    counts = dict.fromkeys(HUES, 0)
    for r, g, b in pixels:
        hue, saturation, value = colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)
        if saturation < 0.45 or value < 0.3:
            continue
        for kind, wanted in HUES.items():
            if min(abs(hue * 360 - wanted), 360 - abs(hue * 360 - wanted)) <= 12:
                counts[kind] += 1
    return counts


@pytest.mark.slow
def test_the_viz_page_draws_searches_and_inspects(tmp_path: Path, embedder: OnnxEmbedder) -> None:
    profile = tmp_path / "chrome"
    profile.mkdir()
    with seeded(tmp_path / "home", embedder) as memory, browser(profile) as page:
        dentist = memory.state("dentist", "Dr. Rao in Kothrud")
        cited = int(scalar(memory.db, "SELECT sentence_id FROM states WHERE id = ?", dentist))
        page.navigate(f"{memory.url}/_orma/viz?space=alice")
        page.wait_for("window.ormaViz && window.ormaViz.ready", timeout=120)
        drawn = set(page.evaluate("window.ormaViz.nodeIds()"))
        assert f"state:{dentist}" in drawn and f"entity:{memory.ids['Dr. Rao']}" in drawn
        assert page.evaluate("document.getElementById('legend').innerText").count("\n") >= 4

        graph = page.screenshot(tmp_path / "viz-graph.png")
        keep(graph)
        pixels = canvas_pixels(graph, panel_boxes(page))
        drawn_pixels = [
            p for p in pixels if sum(abs(a - b) for a, b in zip(p, BACKGROUND, strict=True)) > 60
        ]
        assert len(drawn_pixels) > 0.005 * len(pixels), "the canvas is blank"
        colours = hue_counts(pixels)
        assert all(count >= 5 for count in colours.values()), colours

        page.type_and_enter("#search", "Who is my dentist?")
        page.wait_for(f"window.ormaViz.best === 'state:{dentist}'")
        best = page.evaluate("document.getElementById('best').textContent")
        assert best == "Best match: user · dentist: Dr. Rao in Kothrud"
        assert page.evaluate(f"window.ormaViz.glow('state:{dentist}')") == 1
        # The wave reaches the dentist's entities, then what they link to.
        page.wait_for(f"window.ormaViz.glow('entity:{memory.ids['Dr. Rao']}') > 0")
        block = page.evaluate("document.getElementById('block').textContent")
        assert "[user.dentist: Dr. Rao in Kothrud]" in block
        assert block.startswith("## Memory") and "[FORBIDDEN: chain PowerShell" in block

        time.sleep(2.0)  # the camera's flight to the best match takes 1.2 s
        where = page.evaluate(f"window.ormaViz.screenOf('state:{dentist}')")
        page.click(where["x"], where["y"])
        page.wait_for("!document.getElementById('inspector').hidden", timeout=30)
        inspector = page.evaluate("document.getElementById('inspector').innerText")
        assert "user · dentist: Dr. Rao in Kothrud" in inspector
        assert f"[s{cited}]" in inspector and "“My dentist is Dr. Rao in Kothrud.”" in inspector
        assert "said by user on" in inspector and "Forget (close) this state" in inspector
        shot = page.screenshot(tmp_path / "viz.png")
        keep(shot)

        _drawer_updates_live(page, memory.config, embedder)
        assert page.errors() == []


def _drawer_updates_live(page: Page, config: Any, embedder: OnnxEmbedder) -> None:
    """The drawer lists what waits for sleep and follows it without a reload: a new episode
    appears, then (two pending make the proxy's sleep due) both are consolidated."""
    box = page.evaluate("document.getElementById('drawer-toggle').getBoundingClientRect().toJSON()")
    page.click(box["left"] + 20, (box["top"] + box["bottom"]) / 2)
    page.wait_for("!document.getElementById('drawer').classList.contains('closed')")
    page.wait_for(f"document.getElementById('episodes').innerText.includes({PENDING_NOTE!r})")
    assert "1 pending for sleep" in page.evaluate(
        "document.getElementById('drawer-title').textContent"
    )

    async def add() -> None:
        async with AsyncMemory(config=config, embedder=embedder) as mem:
            await mem.add("The plumber comes on Friday.", "alice")

    asyncio.run(add())
    page.wait_for("document.getElementById('episodes').innerText.includes('plumber comes')", 30)
    page.wait_for(
        "document.getElementById('drawer-title').textContent.includes('0 pending for sleep')", 30
    )
    assert "pending" not in page.evaluate("document.getElementById('episodes').innerText")
