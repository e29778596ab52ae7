/* Views in place: focus mode, opening a community, the breadcrumb back. */
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
