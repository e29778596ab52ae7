/* Adjacency over the whole graph and the ego graph (the same algorithm as views.py ego_nodes). */
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
