/* paperkg explorer. All graph text is inserted with text nodes (textContent / createTextNode):
   never HTML strings built from data. The data comes from the JSON script element #paperkg-data. */
(function () {
  "use strict";
  const doc = document;
  const T_SCRIPT = performance.now();
  const DATA = JSON.parse(doc.getElementById("paperkg-data").textContent);
  const META = DATA.meta;
  const TYPES = META.types;
  const COLORS = META.colors;
  const SHAPES = META.shapes;
  const ROLES = META.roles;
  const PAPERS = DATA.papers;
  const ENTS = DATA.entities;
  const NP = PAPERS.length;
  const NU = NP + ENTS.length;
  const SENT = DATA.sentences;
  const HAS = DATA.has;
  const REL = DATA.related;
  const FOCUS_CAP = META.caps.max_focus_nodes;
  const FOCUS_EDGE_CAP = META.caps.max_focus_edges;
  const LABEL_MAX = META.labelMax;
  const ROLE_HEADINGS = { proposed: "Proposed in", used: "Used by", mentioned: "Mentioned in" };
  const LIST_CAP = 25;

  const $ = (id) => doc.getElementById(id);
  const idToU = new Map();
  for (let i = 0; i < NP; i++) idToU.set(PAPERS[i].i, i);
  for (let j = 0; j < ENTS.length; j++) idToU.set(ENTS[j].i, NP + j);

  const rec = (u) => (u < NP ? PAPERS[u] : ENTS[u - NP]);
  const nodeId = (u) => rec(u).i;
  const typeOf = (u) => (u < NP ? 0 : ENTS[u - NP].ty);
  const labelOf = (u) => { const r = rec(u); return u < NP ? (r.l || r.t || r.i) : r.n; };
  const titleOf = (u) => { const r = rec(u); return u < NP ? (r.t || r.l || r.i) : r.n; };
  const fmt = (n) => Number(n).toLocaleString("en-US");
  const plural = (n, one, many) => fmt(n) + " " + (n === 1 ? one : (many || one + "s"));

  /* ---------------------------------------------------------------- DOM helpers (text only) */
  function el(tag, cls, text) {
    const e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function append(parent, ...kids) {
    for (const k of kids) {
      if (k === null || k === undefined || k === false) continue;
      parent.appendChild(typeof k === "string" ? doc.createTextNode(k) : k);
    }
    return parent;
  }
  function swatch(t) {
    const s = el("span", "sw sw-" + t + " sh-" + SHAPES[t]);
    s.setAttribute("aria-hidden", "true");
    return s;
  }
  function safeUrl(u) {
    if (typeof u !== "string") return null;
    try {
      const url = new URL(u);
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
    } catch (e) {
      return null;
    }
  }
  function shortLabel(s) {
    s = String(s).split(/\s+/).filter(Boolean).join(" ");
    const cps = Array.from(s);
    return cps.length <= LABEL_MAX ? s : cps.slice(0, LABEL_MAX - 1).join("").replace(/\s+$/, "") + "\u2026";
  }
  /** The evidence sentence of HAS row `row` with its mentions wrapped in <mark> (text nodes). */
  function evidence(row) {
    const p = el("p", "evidence");
    if (row[4] < 0 || row[4] === undefined) {
      p.textContent = "(no evidence sentence)";
      return p;
    }
    const s = SENT[row[4]];
    const marks = row[5] || [];
    let pos = 0;
    for (let k = 0; k + 1 < marks.length; k += 2) {
      const a = Math.max(marks[k], pos);
      const b = Math.min(marks[k + 1], s.length);
      if (b <= a) continue;
      if (a > pos) append(p, s.slice(pos, a));
      append(p, el("mark", null, s.slice(a, b)));
      pos = b;
    }
    if (pos < s.length) append(p, s.slice(pos));
    return p;
  }

  /* ---------------------------------------------------------------- adjacency (lazy) */
  let ADJ = null;
  function adj() {
    if (ADJ) return ADJ;
    const has = new Array(NU);
    const rel = new Array(NU);
    for (let u = 0; u < NU; u++) { has[u] = []; rel[u] = []; }
    for (let k = 0; k < HAS.length; k++) { has[HAS[k][0]].push(k); has[HAS[k][1]].push(k); }
    for (let k = 0; k < REL.length; k++) { rel[REL[k][0]].push(k); rel[REL[k][1]].push(k); }
    ADJ = { has, rel };
    return ADJ;
  }
  const degree = (u) => adj().has[u].length + adj().rel[u].length;
  function neighbours(u) {
    const a = adj();
    const out = [];
    for (const k of a.has[u]) out.push(HAS[k][0] === u ? HAS[k][1] : HAS[k][0]);
    for (const k of a.rel[u]) out.push(REL[k][0] === u ? REL[k][1] : REL[k][0]);
    return out;
  }
  const cmpId = (a, b) => { const x = nodeId(a), y = nodeId(b); return x < y ? -1 : x > y ? 1 : 0; };

  /** Same algorithm as html.py ego_nodes(): ring by ring, capped, most-linked first. */
  function egoGraph(center, hops, cap) {
    const dist = new Map([[center, 0]]);
    let frontier = [center];
    let truncated = false;
    for (let hop = 1; hop <= hops; hop++) {
      const links = new Map();
      for (const u of frontier) for (const v of neighbours(u)) if (!dist.has(v)) links.set(v, (links.get(v) || 0) + 1);
      if (!links.size) break;
      let ring = Array.from(links.keys());
      ring.sort((a, b) => links.get(b) - links.get(a) || degree(b) - degree(a) || cmpId(a, b));
      const room = cap - dist.size;
      if (ring.length > room) { ring = ring.slice(0, Math.max(room, 0)); truncated = true; }
      for (const v of ring) dist.set(v, hop);
      frontier = ring;
      if (truncated) break;
    }
    return { dist, truncated };
  }

  /** Same as html.py ego_edges(): links among the members, HAS first (strongest first), then
   *  the heaviest similarity links, at most `cap`, sorted by id. */
  function egoEdges(members, cap) {
    const a = adj();
    const hasIds = [];
    const relIds = [];
    for (const v of members.keys()) {
      for (const k of a.has[v]) if (HAS[k][0] === v && members.has(HAS[k][1])) hasIds.push(k);
      for (const k of a.rel[v]) if (REL[k][0] === v && members.has(REL[k][1])) relIds.push(k);
    }
    hasIds.sort((x, y) => HAS[x][2] - HAS[y][2] || HAS[y][3] - HAS[x][3] || x - y);
    relIds.sort((x, y) => REL[y][2] - REL[x][2] || x - y);
    const ranked = hasIds.map((k) => "h" + k).concat(relIds.map((k) => "r" + k));
    const ids = ranked.slice(0, cap).sort();
    return { ids, dropped: ranked.length - Math.min(ranked.length, cap) };
  }

  /* ---------------------------------------------------------------- node and edge styling */
  function shade(hex, f) {
    const n = parseInt(hex.slice(1), 16);
    const c = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => Math.round(v * f));
    return "#" + c.map((v) => v.toString(16).padStart(2, "0")).join("");
  }
  const COLOR_OBJ = COLORS.map((c) => ({
    background: c, border: shade(c, 0.65),
    highlight: { background: c, border: "#000000" }, hover: { background: c, border: "#000000" },
  }));
  const FADED = { background: "#ececec", border: "#d4d4d4", highlight: { background: "#ececec", border: "#000" }, hover: { background: "#ececec", border: "#999" } };
  const FADED_FONT = { color: "#cfcfcf", strokeWidth: 0 };
  const FADED_EDGE = { color: "#ececec", highlight: "#1b1b1b", hover: "#9a9a9a", inherit: false, opacity: 1 };
  function fontFor(u, size) {
    if (u < NP) return { size: 11, color: "#222", strokeWidth: 3, strokeColor: "#ffffff" };
    return { size: Math.round(12 + size / 3), color: "#111", strokeWidth: 3, strokeColor: "#ffffff" };
  }
  function nodeSize(u) {
    if (u < NP) return 9;
    return Math.round(Math.min(40, 9 + 3.5 * Math.log2(1 + adj().has[u].length)) * 10) / 10;
  }
  /** A vis node for universe index u (the same fields html.py assembles with pyvis). */
  function makeNode(u, x, y) {
    const t = typeOf(u);
    return { id: nodeId(u), label: shortLabel(labelOf(u)) || nodeId(u), shape: SHAPES[t], group: "g" + t, size: nodeSize(u), x, y };
  }
  function decorateNode(n) {
    const u = idToU.get(n.id);
    const out = Object.assign({}, n);
    out.color = COLOR_OBJ[typeOf(u)];
    out.font = fontFor(u, n.size || 9);
    // built now (cheap: a few text nodes), so the tooltip also shows over the node's label
    out.title = nodeTooltip(u);
    return out;
  }
  const EDGE_COLORS = {
    HAS: { color: "#b3b3b3", highlight: "#1b1b1b", hover: "#444444", inherit: false },
    REL: { color: "#56B4E9", highlight: "#0b3d66", hover: "#0072B2", inherit: false, opacity: 0.8 },
    CO: { color: "#a8a8a8", highlight: "#1b1b1b", hover: "#444444", inherit: false },
  };
  function decorateEdge(e) {
    const out = Object.assign({}, e);
    out.color = EDGE_COLORS[e.kind] || EDGE_COLORS.HAS;
    if (e.kind === "REL" || e.kind === "CO") out.value = e.w;
    return out;
  }
  function hasEdge(k) {
    const row = HAS[k];
    const e = { id: "h" + k, kind: "HAS", role: row[2], from: nodeId(row[0]), to: nodeId(row[1]) };
    if (row[2] === 0) e.width = 2;
    else if (row[2] === 2) e.dashes = true;
    return e;
  }
  function relEdge(k) {
    const row = REL[k];
    return { id: "r" + k, kind: "REL", w: row[2], from: nodeId(row[0]), to: nodeId(row[1]) };
  }

  /* ---------------------------------------------------------------- tooltips (DOM elements) */
  function nodeTooltip(u) {
    const box = el("div", "tt");
    append(box, el("span", "tt-title", titleOf(u)));
    if (u < NP) {
      const p = PAPERS[u];
      const vy = [p.v, p.y].filter((x) => x !== undefined && x !== null).join(" ");
      if (vy) append(box, el("span", "tt-sub", vy));
      append(box, el("span", "tt-sub", plural(adj().has[u].length, "entity", "entities")));
    } else {
      const e = ENTS[u - NP];
      append(box, el("span", "tt-sub", TYPES[e.ty] + " · " + plural(adj().has[u].length, "paper")));
      if (e.a && e.a.length) append(box, el("span", "tt-sub", "Also: " + e.a.slice(0, 4).join(", ") + (e.a.length > 4 ? ", …" : "")));
    }
    return box;
  }
  function edgeTooltip(e) {
    const box = el("div", "tt");
    const k = parseInt(e.id.slice(1), 10);
    if (e.kind === "HAS") {
      const row = HAS[k];
      append(box, el("span", "tt-title", labelOf(row[0]) + " → " + labelOf(row[1])));
      append(box, el("span", "tt-sub", ROLES[row[2]] + (row[3] > 1 ? " · " + plural(row[3], "mention") : "")));
      append(box, evidence(row));
    } else if (e.kind === "REL") {
      const row = REL[k];
      append(box, el("span", "tt-title", "Related papers (weight " + row[2] + ")"));
      if (row[3] && row[3].length) append(box, el("span", "tt-sub", "Shared: " + row[3].map(labelOf).join(", ")));
    } else {
      append(box, el("span", "tt-title", labelOf(idToU.get(e.from)) + " + " + labelOf(idToU.get(e.to))));
      append(box, el("span", "tt-sub", plural(e.w, "shared paper")));
    }
    return box;
  }

  /* ---------------------------------------------------------------- network */
  const container = $("graph");
  const nodesDS = new vis.DataSet();
  const edgesDS = new vis.DataSet();
  const BASE = { nodes: DATA.view.nodes, edges: DATA.view.edges, title: META.viewTitle };
  const big = BASE.edges.length > 1500 || BASE.nodes.length > 800;
  const groups = {};
  TYPES.forEach((t, i) => { groups["g" + i] = { shape: SHAPES[i], color: COLOR_OBJ[i] }; });
  const options = {
    autoResize: true,
    physics: { enabled: false },
    layout: { improvedLayout: false, randomSeed: 1 },
    interaction: {
      hover: true, tooltipDelay: 120, hideEdgesOnDrag: big, hideEdgesOnZoom: big,
      keyboard: { enabled: true, bindToWindow: false }, navigationButtons: false, multiselect: false,
    },
    nodes: { borderWidth: 1, borderWidthSelected: 3, scaling: { label: { drawThreshold: 7, maxVisible: 30 } } },
    edges: {
      smooth: false, width: 1, selectionWidth: 1.5, hoverWidth: 0.5,
      scaling: { min: 1, max: 7, label: { enabled: false } },
    },
    groups,
  };
  let cur = { nodes: [], edges: [] }; // what the DataSets hold: ids and edge metadata
  nodesDS.add(BASE.nodes.map(decorateNode));
  edgesDS.add(BASE.edges.map(decorateEdge));
  cur = { nodes: BASE.nodes.map((n) => n.id), edges: BASE.edges.map((e) => ({ id: e.id, from: e.from, to: e.to, kind: e.kind, role: e.role })) };
  const network = new vis.Network(container, { nodes: nodesDS, edges: edgesDS }, options);
  const frame = container.querySelector(".vis-network");
  if (frame) {  // vis makes its frame focusable and binds the keys there
    frame.setAttribute("role", "application");
    frame.setAttribute("aria-label", "Graph drawing. Arrow keys pan, + and - zoom. Use the search box to select a node.");
  }

  let readyFired = false;
  function markReady() {
    if (readyFired) return;
    readyFired = true;
    window.paperkgTiming = { script: T_SCRIPT, ready: performance.now() };
    window.paperkgReady = true;
    doc.body.setAttribute("data-ready", "true");
  }
  network.once("afterDrawing", () => markReady());
  if (!BASE.nodes.length) setTimeout(markReady, 0);

  // edge tooltips are built when first hovered (the popup reads them after tooltipDelay)
  network.on("hoverEdge", (p) => {
    const e = edgesDS.get(p.edge);
    if (e && !e.title) edgesDS.update({ id: e.id, title: edgeTooltip(e) });
  });

  /* ---------------------------------------------------------------- selection + highlight */
  let selected = null;
  let fadedNodes = new Set();
  let fadedEdges = new Set();
  /** Fade exactly `nodes` and `edges`; only the items whose state changes are updated. */
  function applyFade(nodes, edges) {
    const nu = [];
    for (const id of fadedNodes) {
      if (nodes.has(id)) continue;
      const n = nodesDS.get(id);
      if (n) nu.push({ id, color: COLOR_OBJ[typeOf(idToU.get(id))], font: fontFor(idToU.get(id), n.size || 9) });
    }
    for (const id of nodes) if (!fadedNodes.has(id)) nu.push({ id, color: FADED, font: FADED_FONT });
    const eu = [];
    for (const id of fadedEdges) {
      if (edges.has(id)) continue;
      const e = edgesDS.get(id);
      if (e) eu.push({ id, color: EDGE_COLORS[e.kind] || EDGE_COLORS.HAS });
    }
    for (const id of edges) if (!fadedEdges.has(id)) eu.push({ id, color: FADED_EDGE });
    fadedNodes = nodes;
    fadedEdges = edges;
    if (nu.length) nodesDS.update(nu);
    if (eu.length) edgesDS.update(eu);
  }
  function clearHighlight() { applyFade(new Set(), new Set()); }
  /** Fade everything but the node, its neighbours and the links between them. */
  function highlight(id) {
    const keep = new Set(network.getConnectedNodes(id));
    keep.add(id);
    const nodes = new Set();
    nodesDS.forEach((n) => { if (!keep.has(n.id)) nodes.add(n.id); });
    const edges = new Set();
    edgesDS.forEach((e) => { if (e.from !== id && e.to !== id) edges.add(e.id); });
    applyFade(nodes, edges);
  }
  function deselect() {
    selected = null;
    network.unselectAll();
    clearHighlight();
    $("focus-selected").disabled = true;
  }

  /**
   * Select node `id`: in the drawn view -> select, highlight neighbours, open the panel;
   * not drawn -> switch to its focus view (ego graph). opts: center, moveFocus.
   */
  function selectNode(id, opts) {
    opts = opts || {};
    const u = idToU.get(id);
    if (u === undefined) return false;
    let n = nodesDS.get(id);
    if (!n) {
      enterFocus(u, currentHops(), opts);
      return true;
    }
    if (n.hidden) {
      resetFilters();
      announce("Filters were reset to show " + labelOf(u) + ".");
    }
    selected = id;
    network.selectNodes([id]);
    highlight(id);
    $("focus-selected").disabled = false;
    if (opts.center) network.focus(id, { scale: Math.max(network.getScale(), 1.2), animation: false });
    openPanel(u, opts);
    return true;
  }
  network.on("click", (p) => {
    if (p.nodes.length) selectNode(p.nodes[0], {});
    else if (p.edges.length === 1 && p.edges[0][0] === "h") { deselect(); openEdgePanel(parseInt(p.edges[0].slice(1), 10)); }
    else { deselect(); closePanel(false); }
  });
  network.on("doubleClick", (p) => { if (p.nodes.length) enterFocus(idToU.get(p.nodes[0]), currentHops(), {}); });

  /* ---------------------------------------------------------------- side panel */
  const panel = $("panel");
  const panelBody = $("panel-body");
  let lastFocus = null;
  function navButton(u, text) {
    const b = el("button", "linkish", text || titleOf(u));
    b.type = "button";
    b.addEventListener("click", () => selectNode(nodeId(u), { center: true, moveFocus: true }));
    return b;
  }
  function actionButton(text, fn) {
    const b = el("button", null, text);
    b.type = "button";
    b.addEventListener("click", fn);
    return b;
  }
  function actions(u) {
    const box = el("div", "actions");
    append(box, actionButton("Focus on its neighbourhood", () => enterFocus(u, currentHops(), { moveFocus: true })));
    if (nodesDS.get(nodeId(u))) append(box, actionButton("Centre in graph", () => network.focus(nodeId(u), { scale: Math.max(network.getScale(), 1.2), animation: false })));
    return box;
  }
  function moreList(ul, items, render) {
    items.slice(0, LIST_CAP).forEach((it) => ul.appendChild(render(it)));
    if (items.length > LIST_CAP) {
      const b = actionButton("Show all " + fmt(items.length), () => {
        items.slice(LIST_CAP).forEach((it) => ul.appendChild(render(it)));
        b.remove();
        const next = ul.children[LIST_CAP] && ul.children[LIST_CAP].querySelector("button");
        if (next) next.focus();  // keep keyboard users where the new items start
      });
      b.classList.add("more");
      return b;
    }
    return null;
  }
  function paperPanel(u) {
    const p = PAPERS[u];
    const body = el("div");
    const vy = [p.v, p.y].filter((x) => x !== undefined && x !== null).join(" ");
    append(body, el("p", "meta", vy || "Venue unknown"));
    if (p.t && p.l && p.l !== p.t) append(body, el("p", "meta", "Label: " + p.l));
    if (p.a && p.a.length) append(body, el("p", "meta", p.a.join(", ") + (p.na ? " and " + fmt(p.na - p.a.length) + " more" : "")));
    const href = safeUrl(p.u);
    if (href) {
      const a = el("a", null, "Open paper page");
      a.href = href;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      append(body, append(el("p", "meta"), a, " (" + new URL(href).host + ")"));
    }
    append(body, el("p", "meta", "Id: " + p.i));
    append(body, actions(u));
    const rows = adj().has[u].map((k) => HAS[k]);
    if (!rows.length) append(body, el("p", "hint", "No entities were extracted from this paper."));
    for (let t = 1; t < TYPES.length; t++) {
      const mine = rows.filter((r) => typeOf(r[1]) === t);
      if (!mine.length) continue;
      mine.sort((a, b) => a[2] - b[2] || (labelOf(a[1]) < labelOf(b[1]) ? -1 : 1));
      const h = el("h3");
      append(h, swatch(t), TYPES[t] + " (" + mine.length + ")");
      const ul = el("ul");
      ul.setAttribute("data-type", TYPES[t]);
      mine.forEach((r) => {
        const li = el("li");
        append(li, navButton(r[1], labelOf(r[1])), el("span", "badge", ROLES[r[2]]));
        if (r[3] > 1) append(li, el("span", "badge", "×" + r[3]));
        append(li, evidence(r));
        ul.appendChild(li);
      });
      append(body, h, ul);
    }
    return body;
  }
  function entityPanel(u) {
    const e = ENTS[u - NP];
    const body = el("div");
    const rows = adj().has[u].map((k) => HAS[k]);
    const m = el("p", "meta");
    append(m, swatch(e.ty), " " + TYPES[e.ty] + " · " + plural(rows.length, "paper"));
    append(body, m);
    if (e.a && e.a.length) append(body, el("p", "meta", "Also called: " + e.a.join(", ") + (e.na ? " and " + fmt(e.na - e.a.length) + " more" : "")));
    append(body, actions(u));
    ROLES.forEach((role, r) => {
      const mine = rows.filter((row) => row[2] === r);
      if (!mine.length) return;
      mine.sort((a, b) => (titleOf(a[0]) < titleOf(b[0]) ? -1 : 1));
      const ul = el("ul");
      ul.setAttribute("data-role", role);
      const more = moreList(ul, mine, (row) => {
        const li = el("li");
        const p = PAPERS[row[0]];
        append(li, navButton(row[0]));
        const vy = [p.v, p.y].filter((x) => x !== undefined && x !== null).join(" ");
        if (vy) append(li, el("span", "badge", vy));
        append(li, evidence(row));
        return li;
      });
      append(body, el("h3", null, ROLE_HEADINGS[role] + " (" + mine.length + ")"), ul, more);
    });
    const co = new Map();
    for (const row of rows) for (const k of adj().has[row[0]]) { const v = HAS[k][1]; if (v !== u) co.set(v, (co.get(v) || 0) + 1); }
    const top = Array.from(co.entries()).sort((a, b) => b[1] - a[1] || adj().has[b[0]].length - adj().has[a[0]].length || cmpId(a[0], b[0])).slice(0, 10);
    if (top.length) {
      const ul = el("ul");
      ul.setAttribute("data-list", "co-occurring");
      for (const [v, n] of top) {
        const li = el("li");
        append(li, swatch(typeOf(v)), " ", navButton(v, labelOf(v)), el("span", "badge", plural(n, "shared paper")));
        ul.appendChild(li);
      }
      append(body, el("h3", null, "Often together with"), ul);
    }
    return body;
  }
  function showPanel(title, body, opts) {
    if (panel.hidden && doc.activeElement && doc.activeElement !== doc.body) lastFocus = doc.activeElement;
    $("panel-title").textContent = title;
    panelBody.replaceChildren(body);
    panel.hidden = false;
    panel.scrollTop = 0;
    if (opts && opts.moveFocus) panel.focus({ preventScroll: true });
  }
  function openPanel(u, opts) {
    showPanel(titleOf(u), u < NP ? paperPanel(u) : entityPanel(u), opts);
    panel.setAttribute("data-node", nodeId(u));
  }
  function openEdgePanel(k) {
    const row = HAS[k];
    const body = el("div");
    append(body, append(el("p", "meta", "Paper: "), navButton(row[0])));
    const m = el("p", "meta", TYPES[typeOf(row[1])] + ": ");
    m.appendChild(navButton(row[1], labelOf(row[1])));
    append(body, m, el("p", "meta", "Role: " + ROLES[row[2]] + (row[3] > 1 ? " · " + plural(row[3], "mention") : "")), evidence(row));
    showPanel("Link: " + ROLES[row[2]], body, {});
    panel.setAttribute("data-node", "");
  }
  function closePanel(restore) {
    if (panel.hidden) return;
    panel.hidden = true;
    panel.removeAttribute("data-node");
    if (restore !== false && lastFocus && doc.contains(lastFocus)) lastFocus.focus();
    lastFocus = null;
  }
  $("panel-close").addEventListener("click", () => { deselect(); closePanel(true); });

  /* ---------------------------------------------------------------- filters + legend + status */
  const typeOn = TYPES.map(() => true);
  const roleOn = ROLES.map(() => true);
  const typeBoxes = [];
  const roleBoxes = [];
  const hiddenState = new Map();
  function buildFilters() {
    const typeOpts = $("type-options");
    TYPES.forEach((t, i) => {
      const label = el("label");
      const box = el("input");
      box.type = "checkbox";
      box.checked = true;
      box.value = t;
      box.addEventListener("change", () => { typeOn[i] = box.checked; applyFilters(); });
      typeBoxes.push(box);
      const count = el("span", "count");
      count.id = "type-count-" + i;
      append(label, box, swatch(i), " " + t, count);
      typeOpts.appendChild(label);
    });
    const roleOpts = $("role-options");
    ROLES.forEach((r, i) => {
      const label = el("label");
      const box = el("input");
      box.type = "checkbox";
      box.checked = true;
      box.value = r;
      box.addEventListener("change", () => { roleOn[i] = box.checked; applyFilters(); });
      roleBoxes.push(box);
      const count = el("span", "count");
      count.id = "role-count-" + i;
      append(label, box, " " + r, count);
      roleOpts.appendChild(label);
    });
    const legend = $("legend-types");
    TYPES.forEach((t, i) => {
      const li = el("li");
      const count = el("span", "count");
      count.id = "legend-count-" + i;
      append(li, swatch(i), " " + t, count);
      legend.appendChild(li);
    });
    $("reset-filters").addEventListener("click", () => resetFilters());
  }
  function resetFilters() {
    typeBoxes.forEach((b, i) => { b.checked = true; typeOn[i] = true; });
    roleBoxes.forEach((b, i) => { b.checked = true; roleOn[i] = true; });
    applyFilters();
  }
  function applyFilters() {
    const vis = new Map();
    const typeTotal = TYPES.map(() => 0);
    const typeShown = TYPES.map(() => 0);
    for (const id of cur.nodes) vis.set(id, typeOn[typeOf(idToU.get(id))]);
    const hasAny = new Set();
    const hasRole = new Set();
    const roleTotal = ROLES.map(() => 0);
    for (const e of cur.edges) {
      if (e.kind !== "HAS") continue;
      roleTotal[e.role]++;
      hasAny.add(e.to);
      if (roleOn[e.role]) hasRole.add(e.to);
    }
    for (const id of hasAny) if (!hasRole.has(id)) vis.set(id, false);
    const nodeUpd = [];
    let shownNodes = 0;
    for (const id of cur.nodes) {
      const v = vis.get(id);
      const t = typeOf(idToU.get(id));
      typeTotal[t]++;
      if (v) { shownNodes++; typeShown[t]++; }
      if (hiddenState.get(id) !== !v) { hiddenState.set(id, !v); nodeUpd.push({ id, hidden: !v }); }
    }
    const edgeUpd = [];
    let shownEdges = 0;
    for (const e of cur.edges) {
      const v = vis.get(e.from) && vis.get(e.to) && (e.kind !== "HAS" || roleOn[e.role]);
      if (v) shownEdges++;
      if (hiddenState.get(e.id) !== !v) { hiddenState.set(e.id, !v); edgeUpd.push({ id: e.id, hidden: !v }); }
    }
    if (nodeUpd.length) nodesDS.update(nodeUpd);
    if (edgeUpd.length) edgesDS.update(edgeUpd);
    TYPES.forEach((t, i) => {
      $("type-count-" + i).textContent = fmt(typeShown[i]) + "/" + fmt(typeTotal[i]);
      $("legend-count-" + i).textContent = fmt(typeTotal[i]) + " drawn · " + fmt(i === 0 ? META.stats.papers : (META.stats.by_type[t] || 0));
    });
    ROLES.forEach((r, i) => { $("role-count-" + i).textContent = fmt(roleTotal[i]); });
    const anyHas = roleTotal.some((n) => n > 0);
    $("role-filter").disabled = !anyHas;
    $("role-note").hidden = anyHas;
    const status = $("filter-status");
    const filtered = typeOn.some((x) => !x) || roleOn.some((x) => !x);
    status.textContent = "Showing " + fmt(shownNodes) + " of " + plural(cur.nodes.length, "node") +
      " and " + fmt(shownEdges) + " of " + plural(cur.edges.length, "link") + (filtered ? " (filtered)." : ".");
    status.classList.toggle("warn", cur.nodes.length > 0 && shownNodes === 0);
    if (cur.nodes.length > 0 && shownNodes === 0) status.textContent += " Every node is hidden by the filters: use “Reset filters”.";
    $("reset-filters").classList.toggle("attention", filtered);
    $("drawn").textContent = plural(cur.nodes.length, "node") + " · " + plural(cur.edges.length, "edge");
    const empty = $("empty");
    empty.hidden = cur.nodes.length > 0;
    if (!cur.nodes.length) empty.textContent = META.view === "similarity" ? "This graph has no similarity links to draw." : "This graph has no nodes to draw.";
    return { shownNodes, shownEdges };
  }

  /* ---------------------------------------------------------------- views and focus mode */
  function currentHops() { return parseInt($("hops").value, 10) || META.hops || 2; }
  function setView(nodes, edges, title, isBase) {
    selected = null;
    network.unselectAll();
    $("focus-selected").disabled = true;
    fadedNodes = new Set();
    fadedEdges = new Set();
    nodesDS.clear();
    edgesDS.clear();
    hiddenState.clear();
    nodesDS.add(nodes.map(decorateNode));
    edgesDS.add(edges.map(decorateEdge));
    cur = { nodes: nodes.map((n) => n.id), edges: edges.map((e) => ({ id: e.id, from: e.from, to: e.to, kind: e.kind, role: e.role })) };
    $("view-title").textContent = title;
    $("reset-view").hidden = isBase;
    applyFilters();
    network.fit({ animation: false });
  }
  /** Deterministic layout for an ego graph: rings by hop, then a short force-directed pass. */
  function focusLayout(center, members, dist) {
    const n = members.length;
    const idx = new Map(members.map((v, i) => [v, i]));
    const x = new Float64Array(n);
    const y = new Float64Array(n);
    const ang = new Float64Array(n);
    const K = 70;
    const rings = [];
    for (const v of members) { const h = dist.get(v); (rings[h] = rings[h] || []).push(v); }
    for (let h = 1; h < rings.length; h++) {
      const ring = rings[h] || [];
      const pref = new Map();
      for (const v of ring) {
        let sx = 0, sy = 0;
        for (const w of neighbours(v)) if (dist.get(w) === h - 1) { sx += Math.cos(ang[idx.get(w)]); sy += Math.sin(ang[idx.get(w)]); }
        pref.set(v, Math.atan2(sy, sx));
      }
      ring.sort((a, b) => pref.get(a) - pref.get(b) || cmpId(a, b));
      const radius = h * K * Math.max(1, ring.length / (2 * Math.PI * h * 1.3));
      ring.forEach((v, i) => {
        const a = (2 * Math.PI * i) / ring.length + (h % 2 ? 0 : Math.PI / ring.length);
        const j = idx.get(v);
        ang[j] = a; x[j] = radius * Math.cos(a); y[j] = radius * Math.sin(a);
      });
    }
    // attraction: paper-entity links 1, similarity links (dense among papers) 0.3
    const edges = [];
    const a = adj();
    for (const v of members) {
      for (const k of a.has[v]) if (HAS[k][0] === v && idx.has(HAS[k][1])) edges.push([idx.get(v), idx.get(HAS[k][1]), 1]);
      for (const k of a.rel[v]) if (REL[k][0] === v && idx.has(REL[k][1])) edges.push([idx.get(v), idx.get(REL[k][1]), 0.3]);
    }
    let temp = K * 2;
    const c0 = idx.get(center);
    const dx = new Float64Array(n);
    const dy = new Float64Array(n);
    const iters = n > 600 ? 30 : 60;
    for (let it = 0; it < iters; it++) {
      dx.fill(0); dy.fill(0);
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
        let ddx = x[i] - x[j], ddy = y[i] - y[j];
        let d2 = ddx * ddx + ddy * ddy;
        if (d2 < 0.01) { ddx = 0.1 * ((i % 7) - 3); ddy = 0.1 * ((j % 5) - 2); d2 = 0.01; }
        const f = (K * K) / d2;
        dx[i] += ddx * f; dy[i] += ddy * f; dx[j] -= ddx * f; dy[j] -= ddy * f;
      }
      for (const [i, j, w] of edges) {
        const ddx = x[i] - x[j], ddy = y[i] - y[j];
        const d = Math.sqrt(ddx * ddx + ddy * ddy) + 1e-9;
        const f = (w * d) / K;
        dx[i] -= ddx * f; dy[i] -= ddy * f; dx[j] += ddx * f; dy[j] += ddy * f;
      }
      for (let i = 0; i < n; i++) {
        if (i === c0) continue;
        const len = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]) + 1e-9;
        const s = Math.min(len, temp) / len;
        x[i] += dx[i] * s; y[i] += dy[i] * s;
      }
      temp *= 0.93;
    }
    const pos = new Map();
    members.forEach((v, i) => pos.set(v, [Math.round(x[i]), Math.round(y[i])]));
    return pos;
  }
  function enterFocus(u, hops, opts) {
    const ego = egoGraph(u, hops, FOCUS_CAP);
    const members = Array.from(ego.dist.keys()).sort((a, b) => cmpId(a, b));
    const pos = focusLayout(u, members, ego.dist);
    const nodes = members.map((v) => makeNode(v, pos.get(v)[0], pos.get(v)[1]));
    const picked = egoEdges(ego.dist, FOCUS_EDGE_CAP);
    const edges = picked.ids.map((id) => (id[0] === "h" ? hasEdge(parseInt(id.slice(1), 10)) : relEdge(parseInt(id.slice(1), 10))));
    const title = "Focus: " + shortLabel(labelOf(u)) + " (" + plural(hops, "hop") + ")" +
      (ego.truncated ? " · capped at " + fmt(FOCUS_CAP) + " nodes" : "") +
      (picked.dropped ? " · " + fmt(picked.dropped) + " weaker links not drawn" : "");
    setView(nodes, edges, title, false);
    selectNode(nodeId(u), { moveFocus: !!(opts && opts.moveFocus) });
    return { nodes: members.map(nodeId), truncated: ego.truncated };
  }
  function resetView() {
    setView(BASE.nodes, BASE.edges, BASE.title, true);
    closePanel(false);
  }
  $("reset-view").addEventListener("click", () => { resetView(); $("search").focus(); });
  $("focus-selected").addEventListener("click", () => { if (selected) enterFocus(idToU.get(selected), currentHops(), { moveFocus: true }); });
  (function buildHops() {
    const sel = $("hops");
    for (let h = 1; h <= META.maxHops; h++) {
      const o = el("option", null, plural(h, "hop"));
      o.value = String(h);
      if (h === META.hops) o.selected = true;
      sel.appendChild(o);
    }
  })();

  /* ---------------------------------------------------------------- search with suggestions */
  const input = $("search");
  const list = $("suggestions");
  let SEARCH = null;
  let results = [];
  let active = -1;
  function searchIndex() {
    if (SEARCH) return SEARCH;
    SEARCH = new Array(NU);
    for (let u = 0; u < NU; u++) {
      const r = rec(u);
      const keys = u < NP ? [r.t, r.l, r.i.slice(6)] : [r.n].concat(r.a || []);
      SEARCH[u] = keys.filter((k) => typeof k === "string" && k).map((k) => k.toLowerCase());
    }
    return SEARCH;
  }
  function runSearch(q) {
    q = q.trim().toLowerCase();
    if (!q) return [];
    const idx = searchIndex();
    const out = [];
    for (let u = 0; u < NU; u++) {
      const keys = idx[u];
      let best = 9, via = -1;
      for (let i = 0; i < keys.length; i++) {
        const pos = keys[i].indexOf(q);
        if (pos < 0) continue;
        const s = keys[i] === q ? 0 : pos === 0 ? 1 : /[\s\-_(/:,.]/.test(keys[i][pos - 1]) ? 2 : 3;
        if (s < best) { best = s; via = i; }
      }
      if (via >= 0) out.push({ u, s: best, via });
    }
    const drawn = (u) => (nodesDS.get(nodeId(u)) ? 1 : 0);
    out.sort((a, b) => a.s - b.s || drawn(b.u) - drawn(a.u) || degree(b.u) - degree(a.u) || cmpId(a.u, b.u));
    return out.slice(0, 12);
  }
  function renderSuggestions() {
    list.replaceChildren();
    results.forEach((r, i) => {
      const li = el("li");
      li.id = "sugg-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", i === active ? "true" : "false");
      li.setAttribute("data-node", nodeId(r.u));
      append(li, swatch(typeOf(r.u)), " ", titleOf(r.u));
      let sub;
      if (r.u < NP) {
        const p = PAPERS[r.u];
        sub = ["Paper", [p.v, p.y].filter((x) => x !== undefined && x !== null).join(" ")].filter(Boolean).join(" · ");
      } else {
        sub = TYPES[typeOf(r.u)] + " · " + plural(adj().has[r.u].length, "paper");
        if (r.via > 0) sub += " · alias “" + ENTS[r.u - NP].a[r.via - 1] + "”";
      }
      if (!nodesDS.get(nodeId(r.u))) sub += " · opens its neighbourhood";
      append(li, el("span", "s-kind", sub));
      li.addEventListener("mousedown", (ev) => ev.preventDefault());
      li.addEventListener("click", () => choose(i));
      list.appendChild(li);
    });
    const open = results.length > 0;
    list.hidden = !open;
    input.setAttribute("aria-expanded", open ? "true" : "false");
    if (active >= 0) input.setAttribute("aria-activedescendant", "sugg-" + active);
    else input.removeAttribute("aria-activedescendant");
    const q = input.value.trim();
    $("search-status").textContent = q ? (results.length ? plural(results.length, "match", "matches") + (results.length === 12 ? " (first 12)" : "") : "No match for “" + q + "”.") : "";
  }
  function closeSuggestions() {
    results = [];
    active = -1;
    list.replaceChildren();
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  }
  function choose(i) {
    const r = results[i];
    if (!r) return;
    input.value = titleOf(r.u);
    closeSuggestions();
    $("search-status").textContent = "Selected " + titleOf(r.u) + ".";
    selectNode(nodeId(r.u), { center: true, moveFocus: false });
  }
  input.addEventListener("input", () => { results = runSearch(input.value); active = results.length ? 0 : -1; renderSuggestions(); });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      if (!results.length) { results = runSearch(input.value); active = -1; }
      if (!results.length) return;
      ev.preventDefault();
      active = ev.key === "ArrowDown" ? (active + 1) % results.length : (active - 1 + results.length) % results.length;
      renderSuggestions();
      const li = $("sugg-" + active);
      if (li) li.scrollIntoView({ block: "nearest" });
    } else if (ev.key === "Enter") {
      if (!results.length) results = runSearch(input.value);
      if (results.length) { ev.preventDefault(); choose(active >= 0 ? active : 0); }
    } else if (ev.key === "Escape" && !list.hidden) {
      ev.preventDefault();
      ev.stopPropagation();
      closeSuggestions();
    }
  });
  input.addEventListener("blur", () => setTimeout(() => { if (doc.activeElement !== input) closeSuggestions(); }, 150));
  function announce(text) { $("search-status").textContent = text; }

  doc.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !panel.hidden) {
      ev.preventDefault();
      deselect();
      closePanel(true);
    }
  });

  /* ---------------------------------------------------------------- start */
  buildFilters();
  applyFilters();
  if (META.center && nodesDS.get(META.center)) {
    network.once("afterDrawing", () => selectNode(META.center, {}));
  }

  window.paperkg = {
    network, nodes: nodesDS, edges: edgesDS, data: DATA,
    select: (id) => selectNode(id, { center: true }),
    focus: (id, hops) => enterFocus(idToU.get(id), hops || currentHops(), {}),
    reset: resetView,
    resetFilters,
    ego: (id, hops, cap) => Array.from(egoGraph(idToU.get(id), hops, cap || FOCUS_CAP).dist.keys()).map(nodeId).sort(),
    counts: () => {
      let vn = 0, ve = 0;
      nodesDS.forEach((n) => { if (!n.hidden) vn++; });
      edgesDS.forEach((e) => { if (!e.hidden) ve++; });
      return { nodes: nodesDS.length, edges: edgesDS.length, visibleNodes: vn, visibleEdges: ve };
    },
  };
})();
