/* Labels: at any zoom, only the labels that fit without overlapping, most important first
   (the selection and its neighbours, then topics by papers, entities by papers, papers by
   their links in the view). They are drawn on the canvas after vis draws the graph, at a
   readable screen size (never under LABEL_MIN_PX); the tooltip and the panel show full names. */
const LABEL_FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
const LABEL_PX = 12;
const TOPIC_PX = 13;
const LABEL_MIN_PX = 11;
const LABEL_MAX_PX = 20;
const LABEL_CELL = 64;
const canvasEl = container.querySelector("canvas");
let labelOrder = [];
let drawnLabels = [];
const widthCache = new Map();

/** Rank the current view's nodes for labelling (called when a view is set). */
function rankLabels() {
  const deg = new Map();
  for (const e of cur.edges) { deg.set(e.from, (deg.get(e.from) || 0) + 1); deg.set(e.to, (deg.get(e.to) || 0) + 1); }
  const weight = (id) => {
    if (isTopic(id)) return 1e9 + (COMM.get(topicNumber(id)) || [0, 0])[1];
    const u = idToU.get(id);
    return u < NP ? (deg.get(id) || 0) : 1e6 + adj().has[u].length;
  };
  const w = new Map(cur.nodes.map((id) => [id, weight(id)]));
  labelOrder = cur.nodes.slice().sort((a, b) => w.get(b) - w.get(a) || (a < b ? -1 : a > b ? 1 : 0));
}
function textWidth(ctx, font, text) {
  const key = font + "\u0000" + text;
  let w = widthCache.get(key);
  if (w === undefined) {
    ctx.font = font;
    w = ctx.measureText(text).width;
    widthCache.set(key, w);
  }
  return w;
}
const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** The label of node `id` laid out at the current zoom: lines, fonts, box in DOM px. A topic
 *  that does not fit in full may still fit shorter: variant 1 keeps its first entity and its
 *  size, variant 2 its first entity only. */
function labelLayout(ctx, id, pos, scale, variant) {
  const topic = isTopic(id);
  let lines = topic ? LABELS.get(id).split("\n") : [LABELS.get(id)];
  if (topic && variant === 1) lines = [lines[0], lines[lines.length - 1]];
  else if (topic && variant === 2) lines = [lines[0]];
  const sizeLine = topic && variant !== 2 ? lines.length - 1 : -1;
  const px = Math.round(Math.max(LABEL_MIN_PX, Math.min((topic ? TOPIC_PX : LABEL_PX) * scale, LABEL_MAX_PX)) * 2) / 2;
  const fonts = lines.map((_, i) => (topic && i !== sizeLine ? "600 " : "") + px + "px " + LABEL_FONT);
  const lineH = Math.round(px * 1.25);
  const w = Math.max(...lines.map((t, i) => textWidth(ctx, fonts[i], t))) + 4;
  const h = lineH * lines.length;
  const dom = network.canvasToDOM(pos);
  const r = (nodesDS.get(id).size || 9) * scale;
  const top = topic ? dom.y - h / 2 : dom.y + r + 2;
  return { id, lines, fonts, lineH, sizeLine, box: { x: dom.x - w / 2, y: top, w, h } };
}
function drawLabels(ctx) {
  if (!labelOrder.length) { drawnLabels = []; return; }
  const scale = network.getScale();
  const rect = canvasEl.getBoundingClientRect();
  const ratio = canvasEl.width / (rect.width || 1);
  const first = selected ? [selected].concat(network.getConnectedNodes(selected)) : [];
  const seen = new Set();
  const order = first.concat(labelOrder).filter((id) => !seen.has(id) && seen.add(id));
  const pos = network.getPositions(order);
  const grid = new Map();
  const out = [];
  for (const id of order) {
    if (!pos[id] || hiddenState.get(id) || (fadedNodes.size && fadedNodes.has(id)) || !LABELS.get(id)) continue;
    for (let variant = 0; variant < (isTopic(id) ? 3 : 1); variant++) {
      const lab = labelLayout(ctx, id, pos[id], scale, variant);
      const b = lab.box;
      if (b.x + b.w < 0 || b.y + b.h < 0 || b.x > rect.width || b.y > rect.height) break;
      const cells = [];
      for (let gx = Math.floor(b.x / LABEL_CELL); gx <= Math.floor((b.x + b.w) / LABEL_CELL); gx++) {
        for (let gy = Math.floor(b.y / LABEL_CELL); gy <= Math.floor((b.y + b.h) / LABEL_CELL); gy++) cells.push(gx + "," + gy);
      }
      if (cells.some((c) => (grid.get(c) || []).some((o) => overlaps(o, b)))) continue;
      for (const c of cells) { if (!grid.has(c)) grid.set(c, []); grid.get(c).push(b); }
      out.push(lab);
      break;
    }
  }
  ctx.save();
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ctx.lineJoin = "round";
  ctx.lineWidth = 3;
  ctx.strokeStyle = "#ffffff";
  for (const lab of out) {
    const cx = lab.box.x + lab.box.w / 2;
    lab.lines.forEach((t, i) => {
      ctx.font = lab.fonts[i];
      const y = lab.box.y + i * lab.lineH;
      ctx.fillStyle = i === lab.sizeLine ? "#3d3d3d" : "#111111";
      ctx.strokeText(t, cx, y);
      ctx.fillText(t, cx, y);
    });
  }
  ctx.restore();
  drawnLabels = out;
}
network.on("afterDrawing", drawLabels);
