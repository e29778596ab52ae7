/* Start: filters, first selection, and the window.paperkg hooks tests and benches use. */
/* ---------------------------------------------------------------- start */
buildFilters();
applyFilters();
rankLabels();
// a small map would open at scale 1 in a corner of empty canvas: fit it, up to FIT_MAX_ZOOM
network.fit({ animation: false, maxZoomLevel: FIT_MAX_ZOOM });
if (META.center && nodesDS.get(META.center)) {
  network.once("afterDrawing", () => selectNode(META.center, {}));
}

window.paperkg = {
  network, nodes: nodesDS, edges: edgesDS, data: DATA,
  select: (id) => selectNode(id, { center: true }),
  focus: (id, hops) => enterFocus(idToU.get(id), hops || currentHops(), {}),
  reset: resetView,
  openTopic: (c) => openTopic(c, {}),
  openLink: (id) => { deselect(); network.selectEdges([id]); openLinkPanel(id); },
  /** the labels drawn in the last frame: id, text lines, their fonts, box in canvas-element px */
  labels: () => drawnLabels.map((l) => ({ id: l.id, lines: l.lines, fonts: l.fonts, lineH: l.lineH, box: l.box })),
  resetFilters,
  ego: (id, hops, cap) => Array.from(egoGraph(idToU.get(id), hops, cap || FOCUS_CAP).dist.keys()).map(nodeId).sort(),
  counts: () => {
    let vn = 0, ve = 0;
    nodesDS.forEach((n) => { if (!n.hidden) vn++; });
    edgesDS.forEach((e) => { if (!e.hidden) ve++; });
    return { nodes: nodesDS.length, edges: edgesDS.length, visibleNodes: vn, visibleEdges: ve };
  },
};
