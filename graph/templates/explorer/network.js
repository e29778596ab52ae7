/* The vis network, selection and neighbour highlighting. */
/* ---------------------------------------------------------------- network */
const container = $("graph");
const nodesDS = new vis.DataSet();
const edgesDS = new vis.DataSet();
const BASE = { nodes: DATA.view.nodes, edges: DATA.view.edges, title: META.viewTitle };
const big = BASE.edges.length > 1500 || BASE.nodes.length > 800;
const groups = {};
TYPES.forEach((t, i) => { groups["g" + i] = { shape: SHAPES[i], color: COLOR_OBJ[i] }; });
groups.topic = { shape: "dot", color: TOPIC_COLOR };
const options = {
  autoResize: true,
  physics: { enabled: false },
  layout: { improvedLayout: false, randomSeed: 1 },
  interaction: {
    hover: true, tooltipDelay: 120, hideEdgesOnDrag: big, hideEdgesOnZoom: big,
    keyboard: { enabled: true, bindToWindow: false }, navigationButtons: false, multiselect: false,
  },
  nodes: { borderWidth: 1, borderWidthSelected: 3 },
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
    if (n) nu.push({ id, color: colorOf(id) });
  }
  for (const id of nodes) if (!fadedNodes.has(id)) nu.push({ id, color: FADED });
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
  if (isTopic(id)) return COMM.has(topicNumber(id)) ? (openTopic(topicNumber(id), opts), true) : false;
  const u = idToU.get(id);
  if (u === undefined) return false;
  let n = nodesDS.get(id);
  if (!n && u < NP && META.view === "overview" && nodesDS.get(TOPIC_PREFIX + topicOfPaper(u))) {
    openTopic(topicOfPaper(u), { panel: false });  // a paper not drawn on the topic map: open its topic
    n = nodesDS.get(id);
  }
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
  else if (p.edges.length === 1 && "hrc".includes(p.edges[0][0])) { deselect(); openLinkPanel(p.edges[0]); }
  else { deselect(); closePanel(false); }
});
network.on("doubleClick", (p) => {
  if (p.nodes.length && !isTopic(p.nodes[0])) enterFocus(idToU.get(p.nodes[0]), currentHops(), {});
});
