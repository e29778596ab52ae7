/* The page data (JSON script #paperkg-data), lookups, and DOM helpers that only ever set text. */
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
/* results: [paper, kind, value, dataset, metric, method, task, sentence, marks?] (slots -1 when
   empty); boards: [dataset, [[metric, direction, [result...]]...]] in leaderboard order */
const RES = DATA.results || [];
const RESULT_KINDS = META.resultKinds || [];
const R_SLOTS = [["dataset", 3], ["metric", 4], ["method", 5], ["task", 6]];
const BOARD = new Map((DATA.boards || []).map((b) => [b[0], b[1]]));
/** node index -> its result rows (a paper's, and those naming an entity in a slot), in row order */
const RESULTS_OF = new Map();
RES.forEach((r, k) => {
  for (const u of new Set([r[0], r[3], r[4], r[5], r[6]])) {
    if (u < 0) continue;
    if (!RESULTS_OF.has(u)) RESULTS_OF.set(u, []);
    RESULTS_OF.get(u).push(k);
  }
});
const FOCUS_CAP = META.caps.max_focus_nodes;
const FOCUS_EDGE_CAP = META.caps.max_focus_edges;
const LABEL_MAX = META.labelMax;
/* topics (communities): [number, papers, [label entity...]], largest first; "community:<n>" nodes */
const COMMS = DATA.communities;
const COMM = new Map(COMMS.map((c) => [c[0], c]));
const TOPIC_PREFIX = "community:";
const isTopic = (id) => typeof id === "string" && id.startsWith(TOPIC_PREFIX);
const topicNumber = (id) => parseInt(id.slice(TOPIC_PREFIX.length), 10);
const topicName = (c) => {
  if (c === -1) return "papers without similarity links";
  const t = COMM.get(c);
  return t && t[2].length ? t[2].slice(0, 3).map((u) => labelOf(u)).join(" · ") : "Topic " + c;
};
const topicOfPaper = (u) => (PAPERS[u].c === undefined ? -1 : PAPERS[u].c);
const TOPIC_PAPER_CAP = META.caps.max_papers || 150;
const TOPIC_ENTITY_CAP = META.caps.max_entities || 40;
const TOPIC_REL_K = 3;
const FIT_MAX_ZOOM = 2;
/** node id -> its full canvas label (vis draws none: labels.js draws those that fit) */
const LABELS = new Map();
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
  return sentenceWithMarks(row[4], row[5]);
}
/** Sentence `si` of SENT with the UTF-16 ranges `marks` ([start, end, ...]) in <mark>. */
function sentenceWithMarks(si, marks) {
  const p = el("p", "evidence");
  if (si < 0 || si === undefined) {
    p.textContent = "(no evidence sentence)";
    return p;
  }
  const s = SENT[si];
  marks = marks || [];
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
