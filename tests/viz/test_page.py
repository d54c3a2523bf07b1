"""The page ``orma viz`` serves at ``/``, in a real headless Chromium over a seeded memory:
it loads there (not the absent LLM's 502), its first layout fills the view instead of
sitting in a small patch mid-screen, and the entities and rules are named on the graph."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app
from tests.helpers.chromium import Page, browser, keep
from tests.helpers.serving import serve
from tests.helpers.viz_data import seeded

pytestmark = pytest.mark.slow

RULE = "FORBIDDEN: chain PowerShell commands with semicolons"
PANELS = ("bar", "legend", "drawer", "note", "message", "inspector", "recall", "keybox")
ENTITIES = {"user", "Dr. Rao", "Kothrud", "Bangalore", "PowerShell", "Miso"}
INK = {"rule": (253, 164, 175), "entity": (165, 243, 252)}  # the names' colours in viz.css


def shown_labels(page: Page) -> list[dict[str, Any]]:
    """The names drawn on the graph right now: their text and box on the page."""
    found: list[dict[str, Any]] = page.evaluate(
        "[...document.querySelectorAll('#labels .label')]"
        ".filter(e => getComputedStyle(e).visibility === 'visible')"
        ".map(e => ({text: e.textContent, box: e.getBoundingClientRect().toJSON()}))"
    )
    return found


def settled(page: Page, path: Path, tries: int = 40) -> tuple[list[dict[str, Any]], Path]:
    """The labels and a screenshot once two looks half a second apart agree.

    The layout keeps settling after the graph is ready, and a page nobody looks at
    may draw no frame: each look takes a screenshot, which draws one, so the labels
    read are the ones placed against the panels as they are now.
    """
    shot = page.screenshot(path)
    labels = shown_labels(page)
    for _ in range(tries):
        time.sleep(0.5)
        shot = page.screenshot(path)
        again = shown_labels(page)
        if again == labels:
            break
        labels = again
    return labels, shot


def panel_boxes(page: Page) -> list[tuple[float, float, float, float]]:
    """Where panels show (legend, episode bar...): the side panel only where its sections are."""
    found: list[dict[str, float]] = page.evaluate(
        f"{list(PANELS)!r}.map(id => document.getElementById(id))"
        ".filter(e => e && e.getClientRects().length).map(e => e.getBoundingClientRect().toJSON())"
    )
    return [(b["left"], b["top"], b["right"], b["bottom"]) for b in found]


def inked(shot: Path, box: dict[str, float], colour: tuple[int, int, int]) -> int:
    """Pixels of a screenshot inside ``box`` that are (nearly) ``colour``: text drawn there."""
    image = Image.open(shot).convert("RGB")
    pixels = image.load()
    assert pixels is not None
    return sum(
        sum(abs(a - b) for a, b in zip(pixels[x, y], colour, strict=True)) < 60
        for x in range(int(box["left"]), int(box["right"]))
        for y in range(int(box["top"]), int(box["bottom"]))
    )


def overlaps(box: dict[str, float], other: tuple[float, float, float, float]) -> bool:
    left, top, right, bottom = other
    across = box["left"] < right and left < box["right"]
    return across and box["top"] < bottom and top < box["bottom"]


def test_orma_viz_root_fills_the_view_and_names_entities_and_rules(
    tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    profile = tmp_path / "chrome"
    profile.mkdir()
    with seeded(tmp_path / "home", embedder) as memory:
        app = create_app(memory.config, embedder=embedder, background_sleep=False, viz_at_root=True)
        with serve(app) as viz, browser(profile) as page:
            page.navigate(f"{viz.url}/")
            page.wait_for("window.ormaViz && window.ormaViz.ready", timeout=120)
            assert page.evaluate("location.pathname") == "/"
            assert page.evaluate("window.ormaViz.space") == "alice"

            canvas = page.evaluate(
                "document.getElementById('graph').getBoundingClientRect().toJSON()"
            )
            ids = page.evaluate("window.ormaViz.nodeIds()")
            points = [page.evaluate(f"window.ormaViz.screenOf({i!r})") for i in ids]
            assert len(points) >= 10, ids
            xs, ys = [p["x"] for p in points], [p["y"] for p in points]
            # Every node on screen, and the drawing spans most of the canvas one way: the
            # library's zoomToFit left it at 26% of the width and 59% of the height. (The
            # shape follows the data: with recall showing only relevant states, issue 19,
            # the seeded graph spans 59% x 68%.)
            assert canvas["left"] < min(xs) and max(xs) < canvas["right"], (xs, canvas)
            assert canvas["top"] < min(ys) and max(ys) < canvas["bottom"], (ys, canvas)
            across = (max(xs) - min(xs)) / canvas["width"]
            down = (max(ys) - min(ys)) / canvas["height"]
            assert max(across, down) >= 0.65 and across * down >= 0.22, (across, down)

            labels, shot = settled(page, tmp_path / "viz-root.png")
            keep(shot)
            texts = {label["text"] for label in labels}
            assert RULE in texts, texts  # rules are named first
            assert len(texts & ENTITIES) >= 5, texts  # two may crowd each other: one hides
            rule = next(label["box"] for label in labels if label["text"] == RULE)
            where = page.evaluate(f"window.ormaViz.screenOf('state:{memory.rule(RULE[11:])}')")
            assert abs((rule["left"] + rule["right"]) / 2 - where["x"]) < 2, (rule, where)
            assert min(abs(rule["top"] - where["y"]), abs(rule["bottom"] - where["y"])) < 60
            panels = panel_boxes(page)
            for label in labels:
                box = label["box"]
                assert canvas["left"] <= box["left"] and box["right"] <= canvas["right"], label
                assert canvas["top"] <= box["top"] and box["bottom"] <= canvas["bottom"], label
                assert not any(overlaps(box, panel) for panel in panels), label
                kind = "rule" if label["text"] == RULE else "entity"
                assert inked(shot, box, INK[kind]) >= 15, label  # on the screen, not only the DOM
            assert page.errors() == []
