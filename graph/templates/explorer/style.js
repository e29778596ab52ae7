/* Node and edge styling, and tooltips built from DOM elements. Labels are not vis labels:
   labels.js draws the ones that fit (vis would draw every label, overlapping). */
function shade(hex, f) {
  const n = parseInt(hex.slice(1), 16);
  const c = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => Math.round(v * f));
  return "#" + c.map((v) => v.toString(16).padStart(2, "0")).join("");
}
const COLOR_OBJ = COLORS.map((c) => ({
  background: c, border: shade(c, 0.65),
  highlight: { background: c, border: "#000000" }, hover: { background: c, border: "#000000" },
}));
const TOPIC_COLOR = {
  background: "#dcebf7", border: "#0072B2",
  highlight: { background: "#bcd9f0", border: "#000000" }, hover: { background: "#cde3f5", border: "#0b3d66" },
};
const FADED = { background: "#ececec", border: "#d4d4d4", highlight: { background: "#ececec", border: "#000" }, hover: { background: "#ececec", border: "#999" } };
const FADED_EDGE = { color: "#ececec", highlight: "#1b1b1b", hover: "#9a9a9a", inherit: false, opacity: 1 };
const UNLINKED_COLOR = {
  background: "#eeeeee", border: "#767676",
  highlight: { background: "#dddddd", border: "#000000" }, hover: { background: "#e4e4e4", border: "#333333" },
};
const colorOf = (id) => (!isTopic(id) ? COLOR_OBJ[typeOf(idToU.get(id))] : topicNumber(id) === -1 ? UNLINKED_COLOR : TOPIC_COLOR);
function nodeSize(u) {
  if (u < NP) return 9;
  return Math.round(Math.min(40, 9 + 3.5 * Math.log2(1 + adj().has[u].length)) * 10) / 10;
}
/** A vis node for universe index u (the same fields payload.py assembles with pyvis). */
function makeNode(u, x, y) {
  const t = typeOf(u);
  return { id: nodeId(u), label: shortLabel(labelOf(u)) || nodeId(u), shape: SHAPES[t], group: "g" + t, size: nodeSize(u), x, y };
}
function decorateNode(n) {
  const out = Object.assign({}, n);
  LABELS.set(n.id, String(n.label || ""));
  delete out.label;
  out.color = colorOf(n.id);
  if (isTopic(n.id)) out.borderWidth = 2;
  // built now (cheap: a few text nodes), so the tooltip also shows over the node's label
  out.title = isTopic(n.id) ? topicTooltip(topicNumber(n.id)) : nodeTooltip(idToU.get(n.id));
  return out;
}
const EDGE_COLORS = {
  HAS: { color: "#b3b3b3", highlight: "#1b1b1b", hover: "#444444", inherit: false },
  REL: { color: "#56B4E9", highlight: "#0b3d66", hover: "#0072B2", inherit: false, opacity: 0.8 },
  CO: { color: "#a8a8a8", highlight: "#1b1b1b", hover: "#444444", inherit: false },
  TOPIC: { color: "#9cc3e4", highlight: "#0b3d66", hover: "#0072B2", inherit: false, opacity: 0.9 },
};
function decorateEdge(e) {
  const out = Object.assign({}, e);
  out.color = EDGE_COLORS[e.kind] || EDGE_COLORS.HAS;
  if (e.kind === "REL" || e.kind === "CO" || e.kind === "TOPIC") out.value = e.w;
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
function topicTooltip(c) {
  const box = el("div", "tt");
  const t = COMM.get(c);
  append(box, el("span", "tt-title", "Topic: " + topicName(c)));
  append(box, el("span", "tt-sub", plural(t ? t[1] : 0, "paper") + " · click to open"));
  return box;
}
/** "name (type, N papers) +contribution" for each shared entity of similarity link k. */
function sharedLines(k) {
  return (REL[k][3] || []).map(([u, share]) => labelOf(u) + " (" + TYPES[typeOf(u)].toLowerCase() + ", " +
    plural(adj().has[u].length, "paper") + ")" + (share === null || share === undefined ? "" : " +" + share));
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
    append(box, el("span", "tt-title", "Why linked (weight " + row[2] + "): " + shortLabel(labelOf(row[0])) + " ↔ " + shortLabel(labelOf(row[1]))));
    const lines = sharedLines(k);
    append(box, el("span", "tt-sub", lines.length ? "Shared: " + lines.join("; ") : "No shared entity recorded"));
    append(box, el("span", "tt-sub", "Click for the evidence and links to both papers"));
  } else if (e.kind === "TOPIC") {
    append(box, el("span", "tt-title", topicName(topicNumber(e.from)) + " ↔ " + topicName(topicNumber(e.to))));
    append(box, el("span", "tt-sub", plural(e.n, "similarity link") + " between these topics"));
  } else {
    append(box, el("span", "tt-title", labelOf(idToU.get(e.from)) + " + " + labelOf(idToU.get(e.to))));
    append(box, el("span", "tt-sub", plural(e.w, "shared paper") + " · click to list them"));
  }
  return box;
}
