/* Views in place: focus mode, opening a community, the breadcrumb back. */
/* ---------------------------------------------------------------- views and focus mode */
function currentHops() { return parseInt($("hops").value, 10) || META.hops || 2; }
/** The breadcrumb: the page's base view, then the view opened in place (if any). */
function setCrumb(text) {
  const nav = $("crumbs");
  nav.replaceChildren();
  if (text === null) { nav.hidden = true; return; }
  const back = el("button", "linkish", META.view === "overview" ? "Topic map" : "Full view");
  back.type = "button";
  back.id = "crumb-base";
  back.addEventListener("click", () => { resetView(); $("search").focus(); });
  append(nav, back, el("span", "crumb-sep", " › "), el("span", "crumb-here", text));
  nav.hidden = false;
}
function setView(nodes, edges, title, isBase, crumb) {
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
  rankLabels();
  $("view-title").textContent = title;
  $("view-title").setAttribute("title", title);
  $("reset-view").hidden = isBase;
  setCrumb(isBase ? null : (crumb || title));
  applyFilters();
  network.fit({ animation: false, maxZoomLevel: FIT_MAX_ZOOM });
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
  return relax(members, x, y, K, idx.get(center));
}
/** Attraction along the members' links (paper-entity 1, similarity 0.3), repulsion between
 *  all pairs, a cooling step cap: a short Fruchterman-Reingold pass from (x, y). `pinned`
 *  (an index or -1) stays put. Deterministic: no randomness. */
function relax(members, x, y, K, pinned, relKeep) {
  const n = members.length;
  const idx = new Map(members.map((v, i) => [v, i]));
  const edges = [];
  const a = adj();
  for (const v of members) {
    for (const k of a.has[v]) if (HAS[k][0] === v && idx.has(HAS[k][1])) edges.push([idx.get(v), idx.get(HAS[k][1]), 1]);
    for (const k of a.rel[v]) if (REL[k][0] === v && idx.has(REL[k][1]) && (!relKeep || relKeep.has(k))) edges.push([idx.get(v), idx.get(REL[k][1]), 0.3]);
  }
  let temp = K * 2;
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
      if (i === pinned) continue;
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
  setView(nodes, edges, title, false, "Focus: " + shortLabel(labelOf(u)));
  selectNode(nodeId(u), { moveFocus: !!(opts && opts.moveFocus) });
  return { nodes: members.map(nodeId), truncated: ego.truncated };
}
/** What opening topic c draws: its most linked papers (at most TOPIC_PAPER_CAP) and the
 *  entities two or more of them hold, most specific first (at most TOPIC_ENTITY_CAP). */
function topicMembers(c) {
  const a = adj();
  const inside = new Set();
  for (let u = 0; u < NP; u++) if (topicOfPaper(u) === c) inside.add(u);
  const links = new Map();
  for (const u of inside) {
    let n = 0;
    for (const k of a.rel[u]) if (inside.has(REL[k][0] === u ? REL[k][1] : REL[k][0])) n++;
    links.set(u, n);
  }
  const papers = Array.from(inside).sort((p, q) => links.get(q) - links.get(p) || cmpId(p, q)).slice(0, TOPIC_PAPER_CAP);
  const held = new Map();
  for (const u of inside) for (const k of a.has[u]) held.set(HAS[k][1], (held.get(HAS[k][1]) || 0) + 1);
  const score = new Map();
  for (const [e, n] of held) {
    const share = n / inside.size;
    const lift = share / (a.has[e].length / NP);
    if (n >= 2) score.set(e, Math.sqrt(share) * Math.log(Math.max(lift, 1.0001)));
  }
  const entities = Array.from(score.keys()).sort((p, q) => score.get(q) - score.get(p) || cmpId(p, q)).slice(0, TOPIC_ENTITY_CAP);
  return { papers, entities, size: inside.size, held };
}
/** Open topic c in place: its papers and their shared entities, laid out here (papers on an
 *  outer ring, entities inside, then relaxed), with the topic's panel and a breadcrumb back. */
function openTopic(c, opts) {
  const m = topicMembers(c);
  const members = m.entities.concat(m.papers);
  const n = members.length;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const K = 80;
  members.forEach((v, i) => {
    const inner = i < m.entities.length;
    const ring = inner ? m.entities.length : m.papers.length;
    const j = inner ? i : i - m.entities.length;
    const r = K * (inner ? 1 + Math.sqrt(ring) * 0.6 : 2 + Math.sqrt(ring) * 0.9);
    const a = (2 * Math.PI * j) / Math.max(ring, 1);
    x[i] = r * Math.cos(a); y[i] = r * Math.sin(a);
  });
  const keep = new Set(members);
  const a = adj();
  const edges = [];
  // each paper's TOPIC_REL_K strongest similarity links: the whole web would be a knot
  const rel = new Set();
  for (const v of m.papers) {
    for (const k of a.has[v]) if (keep.has(HAS[k][1])) edges.push(hasEdge(k));
    const mine = a.rel[v].filter((k) => keep.has(REL[k][0] === v ? REL[k][1] : REL[k][0]));
    mine.sort((p, q) => REL[q][2] - REL[p][2] || p - q);
    for (const k of mine.slice(0, TOPIC_REL_K)) rel.add(k);
  }
  for (const k of rel) edges.push(relEdge(k));
  const pos = relax(members, x, y, K, -1, rel);
  const nodes = members.map((v) => makeNode(v, pos.get(v)[0], pos.get(v)[1]));
  edges.sort((p, q) => (p.id < q.id ? -1 : p.id > q.id ? 1 : 0));
  const name = topicName(c);
  const title = "Topic: " + name + " · " + plural(m.size, "paper") +
    (m.papers.length < m.size ? " (the " + fmt(m.papers.length) + " most linked drawn)" : "");
  // the panel first: it narrows the canvas, and the view is fitted to what remains
  if (!opts || opts.panel !== false) openTopicPanel(c, m, opts);
  setView(nodes, edges, title, false, "Topic: " + name);
  return { papers: m.papers.map(nodeId), entities: m.entities.map(nodeId) };
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
