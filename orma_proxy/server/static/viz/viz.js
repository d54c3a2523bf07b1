// The memory connectome page: draws /_orma/api/graph with 3d-force-graph (vendored),
// runs recall previews, inspects nodes and polls the drawer. Every request stays on
// this Orma; nothing is fetched from anywhere else.
"use strict";
(() => {
  const COLORS = {
    state: "#22c55e", rule: "#dc143c", conditional: "#f59e0b", entity: "#22d3ee", event: "#a78bfa",
  };
  const DIM = "#1e293b";
  const POLL_MS = 3000;
  const SPREAD_MS = 450; // one hop of the activation wave
  const BIG = 1500; // past this many nodes: coarser spheres, fewer particles, shorter layout
  const LABELS = 60; // at most this many names on the graph: rules first, then the busiest hubs
  // The share of the view's half-width and half-height a fitted graph fills; the rest is
  // margin for the names under the nodes and the episode bar over the bottom edge.
  const FIT = { x: 0.9, y: 0.84 };
  const NEAREST = 120; // a fit never brings the camera closer than this to the middle
  const PANELS = ["legend", "inspector", "recall", "drawer", "note", "message"]; // over the graph
  const $ = (id) => document.getElementById(id);
  const view = {
    space: null, key: sessionStorage.getItem("orma.key") || "", graph: null, version: null,
    byId: new Map(), adjacency: new Map(), glow: new Map(), best: null, selected: null,
    maxActivation: 1, big: false, ready: false, fitted: false, aimed: false, moved: false,
    labels: [], timers: [], poller: null,
  };

  class ApiError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  async function api(path, init = {}) {
    const headers = { Accept: "application/json", ...(init.headers || {}) };
    if (view.key) headers.Authorization = `Bearer ${view.key}`;
    const response = await fetch(path, { ...init, headers });
    const body = await response.json().catch(() => ({}));
    if (response.status === 401) $("keybox").hidden = false;
    if (!response.ok) {
      throw new ApiError(response.status, (body.error && body.error.message) || response.statusText);
    }
    return body;
  }
  const query = (params) => new URLSearchParams(params).toString();

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === "class") node.className = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value);
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined && child !== false) node.append(child);
    }
    return node;
  }
  const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => (
    { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  const when = (iso) => (iso ? new Date(iso).toLocaleString() : "unknown time");
  const say = (text) => { $("message").textContent = text || ""; $("message").hidden = !text; };
  const guarded = (fn) => (...args) => fn(...args).catch((err) => say(err.message));

  // --- the graph ---------------------------------------------------------------------------
  const nodeOf = (ref) => (typeof ref === "object" ? ref : view.byId.get(ref));
  const litLink = (l) => view.glow.has(nodeOf(l.source).id) && view.glow.has(nodeOf(l.target).id);

  function colorOf(n) {
    if (view.glow.size && !view.glow.has(n.id)) return DIM;
    return n.id === view.selected ? "#ffffff" : COLORS[n.kind];
  }

  function sizeOf(n) {
    const degree = (view.adjacency.get(n.id) || []).length;
    const base = n.kind === "entity"
      ? 2 + Math.min(12, 2 * Math.log2(1 + degree))
      : 1.5 + 14 * (n.activation / view.maxActivation);
    return base * (1 + 1.6 * (view.glow.get(n.id) || 0));
  }

  function particlesOf(l) {
    if (litLink(l)) return 4;
    if (l.pulse < 0.05 || (view.big && l.pulse < 0.5)) return 0;
    return 1 + Math.round(3 * l.pulse);
  }

  function restyle() {
    if (!view.graph) return;
    view.graph.nodeColor(colorOf).nodeVal(sizeOf)
      .linkWidth((l) => (litLink(l) ? 1.4 : 0))
      .linkColor((l) => (litLink(l) ? "#f8fafc" : "#475569"))
      .linkDirectionalParticles(particlesOf);
  }

  function webgl() {
    try {
      const canvas = document.createElement("canvas");
      return Boolean(canvas.getContext("webgl2") || canvas.getContext("webgl"));
    } catch (err) {
      return false;
    }
  }

  // Right, up and back (toward the camera) unit vectors of a camera whose back is ``back``
  // and whose up is the world's y, as three.js's lookAt (and so the orbit controls) make them.
  function axesOf(back) {
    const flat = Math.hypot(back[0], back[2]);
    const right = flat > 1e-6 ? [back[2] / flat, 0, -back[0] / flat] : [1, 0, 0];
    const up = [
      back[1] * right[2] - back[2] * right[1],
      back[2] * right[0] - back[0] * right[2],
      back[0] * right[1] - back[1] * right[0],
    ];
    return [right, up, back];
  }
  const along = (n, axis) => n.x * axis[0] + n.y * axis[1] + n.z * axis[2];
  const radiusOf = (n) => Math.cbrt(sizeOf(n)) * view.graph.nodeRelSize();

  // Where a camera with ``axes`` aims (the middle of the nodes across the view) and how far
  // back it stands to keep every sphere inside FIT of the view (of its top ``tall`` share in
  // height): a node x across and d toward the camera from the aim shows at
  // x / ((D - d) tan(fov/2) aspect) of the half-width.
  function plan(nodes, radii, axes, camera, tall) {
    const low = [Infinity, Infinity, Infinity];
    const high = [-Infinity, -Infinity, -Infinity];
    for (const n of nodes) {
      axes.forEach((axis, i) => {
        const at = along(n, axis);
        low[i] = Math.min(low[i], at);
        high[i] = Math.max(high[i], at);
      });
    }
    const mid = low.map((value, i) => (value + high[i]) / 2);
    const tan = Math.tan((camera.fov * Math.PI) / 360);
    let distance = NEAREST;
    nodes.forEach((n, k) => {
      const [x, y, d] = axes.map((axis, i) => along(n, axis) - mid[i]);
      const r = radii[k];
      distance = Math.max(distance,
        d + r + (Math.abs(x) + r) / (tan * camera.aspect * FIT.x),
        d + r + (Math.abs(y) + r) / (tan * FIT.y * tall));
    });
    return { mid, distance };
  }

  // The unit vector a symmetric 3x3 matrix stretches most (power iteration).
  function widest(m) {
    let v = [0.6, 0.5, 0.62];
    for (let step = 0; step < 60; step++) {
      const next = m.map((row) => row[0] * v[0] + row[1] * v[1] + row[2] * v[2]);
      const length = Math.hypot(...next);
      if (length < 1e-9) break;
      v = next.map((value) => value / length);
    }
    return v;
  }

  // Turns a freshly laid out graph about its middle so that its longest spread runs along x
  // (across the wide screen), the next along y and the thinnest along z (toward the camera):
  // a layout is the same turned any way, but seen from the wrong side it fills a narrow strip.
  function squareUp(nodes) {
    const mid = ["x", "y", "z"].map((c) => nodes.reduce((sum, n) => sum + n[c], 0) / nodes.length);
    const spread = [0, 1, 2].map((i) => [0, 1, 2].map((j) => nodes.reduce(
      (sum, n) => sum + (n["xyz"[i]] - mid[i]) * (n["xyz"[j]] - mid[j]), 0)));
    const first = widest(spread);
    const strength = [0, 1, 2].map((i) => spread[i].reduce((sum, v, j) => sum + v * first[j], 0))
      .reduce((sum, v, i) => sum + v * first[i], 0);
    const rest = spread.map((row, i) => row.map((v, j) => v - strength * first[i] * first[j]));
    const second = widest(rest);
    const third = [
      first[1] * second[2] - first[2] * second[1],
      first[2] * second[0] - first[0] * second[2],
      first[0] * second[1] - first[1] * second[0],
    ];
    const turn = (p) => [first, second, third].map((a) => a[0] * p[0] + a[1] * p[1] + a[2] * p[2]);
    for (const n of nodes) {
      [n.x, n.y, n.z] = turn([n.x - mid[0], n.y - mid[1], n.z - mid[2]]);
      [n.vx, n.vy, n.vz] = turn([n.vx || 0, n.vy || 0, n.vz || 0]);
    }
  }

  // Fits the graph to the view. The library's zoomToFit aims at the origin and sizes for the
  // farthest coordinate on any axis, depth included, so a first load sat in a small patch
  // mid-screen. This aims at the nodes' middle and comes as close as they allow; ``aim``
  // (a space's first fit) also squares the layout up and looks at it from the front.
  // Says whether there was anything to fit.
  function fit(ms, aim = false) {
    const g = view.graph;
    const nodes = [...view.byId.values()].filter((n) => Number.isFinite(n.x));
    if (!g || !nodes.length) return false;
    if (aim && nodes.length > 2) squareUp(nodes);
    const camera = g.camera();
    const target = g.controls().target;
    const back = aim ? [0, 0, 1] : [
      camera.position.x - target.x, camera.position.y - target.y, camera.position.z - target.z];
    const length = Math.hypot(...back) || 1;
    // The episode bar covers the bottom of the canvas: fit above it, lifted half its height.
    const box = $("graph").getBoundingClientRect();
    const bar = $("drawer").getBoundingClientRect().top;
    const covered = Math.max(0, Math.min(box.height / 2, box.bottom - bar));
    const axes = axesOf(back.map((v) => v / length));
    const best = plan(nodes, nodes.map(radiusOf), axes, camera, 1 - covered / box.height);
    const lift = (covered / box.height) * Math.tan((camera.fov * Math.PI) / 360) * best.distance;
    const world = (k, out) => axes.reduce((sum, axis, i) => sum + axis[k] * best.mid[i], 0)
      + axes[2][k] * out - axes[1][k] * lift;
    const point = (out) => ({ x: world(0, out), y: world(1, out), z: world(2, out) });
    g.cameraPosition(point(best.distance), point(0), ms);
    return true;
  }

  // --- names on the graph: the entities and rules a person looks for --------------------------
  function makeLabels() {
    const degree = (n) => (view.adjacency.get(n.id) || []).length;
    const named = [...view.byId.values()]
      .filter((n) => n.kind === "entity" || n.kind === "rule")
      .sort((a, b) => (b.kind === "rule") - (a.kind === "rule") || degree(b) - degree(a))
      .slice(0, LABELS);
    view.labels = named.map((n) => ({
      id: n.id,
      box: el("div", { class: `label ${n.kind}` }, n.label),
    }));
    $("labels").replaceChildren(...view.labels.map((l) => l.box));
    // Fractional sizes: offsetHeight rounds 17.4 px down, and a name would overlap a panel by that.
    for (const l of view.labels) {
      const { width, height } = l.box.getBoundingClientRect();
      Object.assign(l, { w: width, h: height });
    }
  }

  // Every frame: each name just under its sphere, or over it if a panel or a name placed
  // before it (rules first, then the busiest hubs) is in the way there; else it hides.
  function placeLabels() {
    requestAnimationFrame(placeLabels);
    const g = view.graph;
    if (!g || !view.labels.length) return;
    const camera = g.camera();
    const e = camera.matrixWorld.elements;
    const back = [e[8], e[9], e[10]];
    const eye = camera.position;
    const perUnit = $("graph").clientHeight / 2 / Math.tan((camera.fov * Math.PI) / 360);
    const origin = $("labels").getBoundingClientRect();
    const placed = PANELS.map($).filter((panel) => panel.getClientRects().length).map((panel) => {
      const r = panel.getBoundingClientRect();
      return [r.left - origin.left, r.top - origin.top, r.right - origin.left, r.bottom - origin.top];
    });
    for (const l of view.labels) {
      const n = view.byId.get(l.id);
      let shown = false;
      if (n && Number.isFinite(n.x)) {
        const depth = -along({ x: n.x - eye.x, y: n.y - eye.y, z: n.z - eye.z }, back);
        const p = depth > 1 && g.graph2ScreenCoords(n.x, n.y, n.z);
        if (p) {
          const left = p.x - l.w / 2;
          const reach = (radiusOf(n) * perUnit) / depth + 2;
          const free = (top) => !placed.some((o) => left < o[2] && o[0] < left + l.w
            && top < o[3] && o[1] < top + l.h);
          const top = [p.y + reach, p.y - reach - l.h].find(free);
          shown = top !== undefined;
          if (shown) {
            placed.push([left, top, left + l.w, top + l.h]);
            const at = `translate(${left.toFixed(1)}px, ${top.toFixed(1)}px)`;
            if (l.at !== at) l.box.style.transform = l.at = at;
          }
        }
      }
      // Only changes touch the page: a still graph costs no style work per frame.
      if (l.shown !== shown) l.box.style.visibility = (l.shown = shown) ? "visible" : "hidden";
      const faded = view.glow.size > 0 && !view.glow.has(l.id);
      if (l.faded !== faded) l.box.classList.toggle("faded", (l.faded = faded));
    }
  }

  function makeGraph() {
    const box = $("graph");
    const graph = ForceGraph3D({ controlType: "orbit" })(box)
      .width(box.clientWidth).height(box.clientHeight)
      .backgroundColor("#070b14").showNavInfo(false)
      // Dragging nodes is off: its drag-end replays a pointerup the orbit controls throw on.
      .enableNodeDrag(false)
      .nodeLabel((n) => `<div class="tip">${escapeHtml(n.label)}</div>`)
      .nodeOpacity(0.95)
      .linkDirectionalParticleWidth(1.8)
      .linkDirectionalParticleSpeed((l) => 0.0015 + 0.01 * l.pulse)
      .linkDirectionalParticleColor((l) => COLORS[nodeOf(l.target).kind] || "#e2e8f0")
      .onNodeClick((n) => guarded(inspect)(n.id))
      // While a space's first layout settles the camera follows it, until the user takes over.
      .onEngineTick(() => {
        if (view.fitted || view.moved) return;
        if (fit(0, !view.aimed)) view.aimed = true;
      })
      .onEngineStop(() => {
        if (view.fitted) { view.ready = true; return; }
        view.fitted = true;
        if (!view.moved) fit(400);
        setTimeout(() => { view.ready = true; }, 600);
      });
    for (const kind of ["pointerdown", "wheel"]) {
      box.addEventListener(kind, () => { view.moved = true; }, { passive: true });
    }
    window.addEventListener("resize", () => {
      graph.width(box.clientWidth).height(box.clientHeight);
      if (!view.moved) fit(0);
    });
    requestAnimationFrame(placeLabels);
    return graph;
  }

  async function loadGraph() {
    const data = await api(`/_orma/api/graph?${query({ space: view.space })}`);
    const before = view.byId;
    view.byId = new Map();
    view.adjacency = new Map();
    for (const n of data.nodes) {
      const old = before.get(n.id);
      if (old) Object.assign(n, { x: old.x, y: old.y, z: old.z });
      view.byId.set(n.id, n);
    }
    for (const l of data.links) {
      for (const [a, b] of [[l.source, l.target], [l.target, l.source]]) {
        if (!view.adjacency.has(a)) view.adjacency.set(a, []);
        view.adjacency.get(a).push(b);
      }
    }
    view.maxActivation = data.nodes.reduce((m, n) => Math.max(m, n.activation), 0.001);
    view.big = data.nodes.length > BIG;
    view.version = data.version;
    $("note").textContent = data.note || "";
    $("note").hidden = !data.note;
    $("stats").textContent =
      `${data.shown_nodes.toLocaleString()} nodes · ${data.links.length.toLocaleString()} links`;
    say(data.nodes.length ? "" : "Nothing consolidated in this space yet: sleep turns episodes "
      + "into states and events.");
    if (!view.graph) { view.ready = true; return; }
    const big = view.big;
    view.graph.nodeResolution(big ? 5 : 14).linkOpacity(big ? 0.2 : 0.5)
      .warmupTicks(big ? 20 : 80).cooldownTime(big ? 6000 : 3000);
    view.graph.d3Force("link").distance(big ? 30 : 60);
    restyle();
    view.graph.graphData({ nodes: data.nodes, links: data.links });
    makeLabels();
    if (!data.nodes.length) view.ready = true;
  }

  function fly(id) {
    const n = view.byId.get(id);
    if (!view.graph || !n || n.x === undefined) return;
    const ratio = 1 + 220 / (Math.hypot(n.x, n.y, n.z) || 1);
    view.graph.cameraPosition({ x: n.x * ratio, y: n.y * ratio, z: n.z * ratio }, n, 1200);
  }

  // --- recall preview and the activation wave ----------------------------------------------------
  function hopsFrom(start, limit) {
    const dist = new Map([[start, 0]]);
    let frontier = [start];
    for (let hop = 1; hop <= limit && frontier.length; hop++) {
      const next = [];
      for (const id of frontier) {
        for (const other of view.adjacency.get(id) || []) {
          if (!dist.has(other)) { dist.set(other, hop); next.push(other); }
        }
      }
      frontier = next;
    }
    return dist;
  }

  function clearWave() {
    view.timers.forEach(clearTimeout);
    view.timers = [];
    view.glow = new Map();
    view.best = null;
  }

  // Lights the best match, then each hop of the graph around it: the matches and what the
  // ranker's spreading activation reached, brighter the stronger; entities carry it between.
  function wave(result) {
    const lit = new Map();
    const top = (result.matches[0] && result.matches[0].score) || 1;
    for (const m of result.matches) lit.set(m.id, Math.max(0.35, m.score / top));
    const spread = Object.entries(result.activation);
    const most = spread.reduce((m, [, a]) => Math.max(m, a), 0.001);
    for (const [id, a] of spread) lit.set(id, Math.max(lit.get(id) || 0, 0.25 + 0.6 * (a / most)));
    for (const id of [...lit.keys()]) {
      for (const entity of view.adjacency.get(id) || []) if (!lit.has(entity)) lit.set(entity, 0.5);
    }
    const start = [result.best, ...lit.keys()].find((id) => id && view.byId.has(id));
    if (!start) return;
    view.best = start;
    view.glow = new Map([[start, 1]]);
    restyle();
    fly(start);
    const dist = hopsFrom(start, 6);
    const far = [...lit.keys()].reduce((m, id) => Math.max(m, dist.get(id) || 0), 0);
    for (let hop = 1; hop <= far + 1; hop++) {
      view.timers.push(setTimeout(() => {
        for (const [id, value] of lit) {
          const d = dist.has(id) ? dist.get(id) : far + 1;
          if (d === hop && view.byId.has(id)) view.glow.set(id, value);
        }
        restyle();
      }, SPREAD_MS * hop));
    }
  }

  function showRecall(result) {
    $("recall").hidden = false;
    const best = result.best && view.byId.get(result.best);
    $("best").replaceChildren(best
      ? el("span", {}, "Best match: ", el("span", { class: "linkish", onclick: guarded(() => inspect(best.id)) }, best.label))
      : (result.best ? `Best match ${result.best} is not drawn (the graph is capped).`
        : "No state or event matched; the block may still hold passages."));
    $("matches").replaceChildren(...result.matches.slice(0, 8).map((m) => {
      const n = view.byId.get(m.id);
      return el("li", {},
        el("span", { class: "linkish", onclick: guarded(() => inspect(m.id)) }, n ? n.label : m.id),
        el("span", { class: "dim" }, ` score ${m.score.toFixed(3)}`,
          m.activation > 0 ? ` · activation ${m.activation.toFixed(3)}` : ""));
    }));
    $("tokens").textContent = `(${result.tokens} tokens)`;
    $("block").textContent = result.block || "(empty: recall would inject nothing)";
  }

  async function search(text) {
    if (!text.trim()) return;
    clearWave();
    restyle();
    const result = await api("/_orma/api/recall", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query: text, space: view.space }),
    });
    wave(result);
    showRecall(result);
  }

  // --- the inspector -----------------------------------------------------------------------------
  function itemLink(item) {
    return el("span", { class: "linkish", onclick: guarded(() => inspect(item.id)) }, item.label);
  }

  function field(name, ...value) {
    return el("div", { class: "field" }, el("b", {}, name), ...value);
  }

  function renderInspector(d) {
    const parts = [
      el("h2", {}, el("span", { class: "badge" }, d.kind), " ", d.label),
      d.value !== d.label ? field("Value", d.value) : null,
      d.condition ? field("When", d.condition) : null,
      d.date !== undefined ? field("Date", d.date || "undated", d.when_text ? ` (“${d.when_text}”)` : "") : null,
    ];
    parts[0].firstChild.style.background = COLORS[d.kind] || "#94a3b8";
    if (d.citation) {
      const c = d.citation;
      parts.push(el("div", { class: "citation" },
        el("span", { class: "cite-label" }, c.label), c.text ? `“${c.text}”` : "(sentence no longer shown)",
        el("div", { class: "dim small" }, `said by ${c.role || "?"} on ${when(c.said_at)}`)));
    }
    if (d.history) {
      if (d.history.replaced.length) parts.push(field("Replaced", ...d.history.replaced.map(itemLink)));
      if (d.history.replaced_by.length) parts.push(field("Replaced by", ...d.history.replaced_by.map(itemLink)));
      if (!d.active) parts.push(field("Closed", `${d.end_reason || "closed"} on ${when(d.valid_to)}`));
    }
    if (d.rehearsals !== undefined) {
      parts.push(field("Rehearsed", `${d.rehearsals}×`, d.rehearsed_at ? ` (last ${when(d.rehearsed_at)})` : ""));
    }
    if (d.recalls !== undefined) {
      parts.push(field("Recalled", `${d.recalls}×`, d.last_recalled ? ` (last ${when(d.last_recalled)})` : ""));
      parts.push(field("Activation", `${d.activation.toFixed(3)} · pulse ${d.pulse.toFixed(2)}`));
    }
    if (d.links !== undefined) parts.push(field("Links", String(d.links)));
    if (d.neighbours && d.neighbours.length) {
      parts.push(field("Linked", el("div", {}, ...d.neighbours.map((n) => el("div", {}, itemLink(n))))));
    }
    if (d.can_forget) {
      const button = el("button", { class: "danger", id: "forget" }, "Forget (close) this state");
      button.addEventListener("click", guarded(() => forget(d, button)));
      parts.push(el("div", { class: "field" }, button,
        el("div", { class: "dim small" }, "Closed states stay in the history; nothing is deleted.")));
    }
    $("inspector-body").replaceChildren(...parts.filter(Boolean));
    $("inspector").hidden = false;
  }

  async function inspect(id) {
    view.selected = id;
    restyle();
    renderInspector(await api(`/_orma/api/node/${encodeURIComponent(id)}?${query({ space: view.space })}`));
  }

  async function forget(d, button) {
    if (button.dataset.armed !== "yes") {
      button.dataset.armed = "yes";
      button.textContent = "Click again to forget it";
      return;
    }
    const number = d.id.split(":")[1];
    renderInspector(await api(`/_orma/api/state/${number}/forget?${query({ space: view.space })}`,
      { method: "POST" }));
    await loadGraph();
  }

  // --- the drawer: recent episodes and what waits for sleep ----------------------------------------
  function renderFeed(feed) {
    const sleeping = feed.sleep_running ? "sleep runs in the background" : "sleep is not running here";
    $("drawer-title").textContent =
      `Recent episodes · ${feed.pending} pending for sleep · ${sleeping}`;
    $("episodes").replaceChildren(...feed.episodes.map((e) => el("li", {},
      el("span", { class: "role" }, `#${e.id} ${e.role} · ${when(e.said_at)}`), e.text,
      e.pending ? el("span", { class: "pending-tag" }, "pending") : null)));
  }

  async function poll() {
    clearTimeout(view.poller);
    try {
      const feed = await api(`/_orma/api/pending?${query({ space: view.space })}`);
      renderFeed(feed);
      if (view.version !== null && feed.version !== view.version) await loadGraph();
    } catch (err) {
      $("drawer-title").textContent = `Recent episodes (unavailable: ${err.message})`;
    }
    view.poller = setTimeout(poll, POLL_MS);
  }

  // --- spaces, keys and start-up ---------------------------------------------------------------
  async function chooseSpace(name) {
    view.space = name;
    const url = new URL(location.href);
    url.searchParams.set("space", name);
    history.replaceState(null, "", url);
    clearWave();
    view.selected = null;
    view.fitted = false;
    view.moved = false;
    view.aimed = false;
    $("inspector").hidden = true;
    $("recall").hidden = true;
    await loadGraph();
    await poll();
  }

  async function start() {
    const data = await api("/_orma/api/spaces");
    const names = data.spaces.map((s) => s.name);
    const wanted = new URLSearchParams(location.search).get("space");
    if (wanted && !names.includes(wanted)) names.unshift(wanted);
    if (!names.length) names.push(data.default);
    $("space").replaceChildren(...names.map((n) => el("option", { value: n }, n)));
    const first = wanted || (names.includes(data.default) ? data.default : names[0]);
    $("space").value = first;
    await chooseSpace(first);
  }

  $("space").addEventListener("change", guarded(() => chooseSpace($("space").value)));
  $("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(search)($("search").value);
  });
  $("inspector-close").addEventListener("click", () => {
    $("inspector").hidden = true; view.selected = null; restyle();
  });
  $("recall-close").addEventListener("click", () => { $("recall").hidden = true; clearWave(); restyle(); });
  $("drawer-toggle").addEventListener("click", () => {
    const open = $("drawer").classList.toggle("closed") === false;
    $("drawer-toggle").setAttribute("aria-expanded", String(open));
  });
  $("keybox").addEventListener("submit", (event) => {
    event.preventDefault();
    view.key = $("key").value.trim();
    sessionStorage.setItem("orma.key", view.key);
    $("keybox").hidden = true;
    guarded(start)();
  });

  if (webgl()) view.graph = makeGraph();
  else say("This page draws with WebGL, which this browser does not offer; search and the drawer still work.");

  // A read-only handle for automation (the browser test): what is drawn and lit, and where.
  window.ormaViz = Object.freeze({
    get ready() { return view.ready; },
    get space() { return view.space; },
    get best() { return view.best; },
    glow: (id) => view.glow.get(id) || 0,
    nodeIds: () => [...view.byId.keys()],
    screenOf(id) {
      const n = view.byId.get(id);
      if (!view.graph || !n || n.x === undefined) return null;
      const p = view.graph.graph2ScreenCoords(n.x, n.y, n.z);
      const box = $("graph").getBoundingClientRect();
      return { x: p.x + box.left, y: p.y + box.top };
    },
  });
  guarded(start)();
})();
