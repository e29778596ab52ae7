/* The side panel: papers, entities, links, communities. */
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
/* ---------------------------------------------------------------- results */
const RESULT_SLOT_ORDER = [["metric", 4], ["dataset", 3], ["method", 5], ["task", 6]];
const DIRECTION_TEXT = { 1: "higher is better", "-1": "lower is better", 0: "direction unknown" };
const resultsOf = (u) => RESULTS_OF.get(u) || [];
/** One result: its value and kind, its filled slots but `skip` as links, its paper unless it
 *  is `skip`, and its sentence with the value marked. */
function resultItem(k, skip) {
  const r = RES[k];
  const li = el("li", "result");
  li.setAttribute("data-result", String(k));
  append(li, el("span", "result-value", r[2]), el("span", "badge", RESULT_KINDS[r[1]] || "result"));
  const slots = el("p", "meta slots");
  for (const [name, i] of RESULT_SLOT_ORDER) {
    if (r[i] < 0 || r[i] === skip) continue;
    append(slots, slots.childNodes.length ? " · " : "", name + ": ", navButton(r[i], labelOf(r[i])));
  }
  if (slots.childNodes.length) append(li, slots);
  if (r[0] !== skip) append(li, append(el("p", "meta"), "in ", navButton(r[0])));
  append(li, sentenceWithMarks(r[7], r[8]));
  return li;
}
/** The results section of node `u`: result rows `ks` under `heading`, 25 shown at first. */
function resultList(body, u, ks, heading) {
  if (!ks.length) return;
  const ul = el("ul");
  ul.setAttribute("data-list", "results");
  const more = moreList(ul, ks, (k) => resultItem(k, u));
  append(body, el("h3", null, heading + " (" + ks.length + ")"), ul, more);
}
/** A dataset's leaderboard: its scores by metric, best first where the direction is known. */
function leaderboard(body, u) {
  const groups = BOARD.get(u);
  if (!groups) return new Set();
  const shown = new Set();
  const box = el("div", "leaderboard");
  box.setAttribute("data-list", "leaderboard");
  append(body, el("h3", null, "Leaderboard (" + plural(groups.reduce((n, g) => n + g[2].length, 0), "score") + ")"), box);
  for (const [m, dir, ks] of groups) {
    const h = el("h4");
    append(h, m < 0 ? "No metric" : navButton(m, labelOf(m)), el("span", "badge", DIRECTION_TEXT[dir] || DIRECTION_TEXT[0]));
    const table = el("table", "board");
    table.setAttribute("data-metric", m < 0 ? "" : nodeId(m));
    table.appendChild(append(el("thead"), append(el("tr"), el("th", null, "Score"), el("th", null, "Method"), el("th", null, "Paper"))));
    const rows = el("tbody");
    const more = moreList(rows, ks, (k) => {
      const r = RES[k];
      const tr = el("tr");
      tr.setAttribute("data-result", String(k));
      const score = el("td", "result-value", r[2]);
      if (r[7] >= 0) score.title = SENT[r[7]];  // a property: text, never markup
      append(tr, score, append(el("td"), r[5] >= 0 ? navButton(r[5], labelOf(r[5])) : "—"), append(el("td"), navButton(r[0])));
      return tr;
    });
    ks.forEach((k) => shown.add(k));
    append(box, h, append(table, rows), more);
  }
  return shown;
}
/** A metric's datasets: those of its results, most results first. */
function metricDatasets(body, u) {
  const on = new Map();
  let without = 0;
  for (const k of resultsOf(u)) {
    const r = RES[k];
    if (r[4] !== u) continue;
    if (r[3] < 0) without++;
    else on.set(r[3], (on.get(r[3]) || 0) + 1);
  }
  if (!on.size && !without) return;
  const ul = el("ul");
  ul.setAttribute("data-list", "datasets");
  const items = Array.from(on.entries()).sort((a, b) => b[1] - a[1] || cmpId(a[0], b[0]));
  const more = moreList(ul, items, ([v, n]) => append(el("li"), swatch(typeOf(v)), " ", navButton(v, labelOf(v)), el("span", "badge", plural(n, "result"))));
  append(body, el("h3", null, "Reported on (" + plural(items.length, "dataset") + ")"), ul, more);
  if (without) append(body, el("p", "hint", "Also " + plural(without, "result") + " without a dataset."));
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
  resultList(body, u, resultsOf(u), "Results");
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
  append(body, el("p", "meta canonical", "Canonical id: " + (e.k || e.i.slice(7))));
  const ids = [e.pw ? "Papers with Code: " + e.pw : null, e.cs ? "CodeSOTA: " + e.cs : null].filter(Boolean);
  const record = safeUrl(e.ru);
  if (ids.length || record) {
    const p = el("p", "meta record", ids.join(" · "));
    if (record) {
      const a = el("a", null, "archived record");
      a.href = record;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      append(p, ids.length ? " · " : "", a, " (" + new URL(record).host + ")");
    }
    append(body, p);
  }
  append(body, actions(u));
  const inBoard = leaderboard(body, u);
  if (TYPES[e.ty] === "Metric") metricDatasets(body, u);
  resultList(body, u, resultsOf(u).filter((k) => !inBoard.has(k)), inBoard.size ? "Other results" : "Results");
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
  panel.removeAttribute("data-edge");
  panelBody.replaceChildren(body);
  panel.hidden = false;
  panel.scrollTop = 0;
  if (opts && opts.moveFocus) panel.focus({ preventScroll: true });
}
function openPanel(u, opts) {
  showPanel(titleOf(u), u < NP ? paperPanel(u) : entityPanel(u), opts);
  panel.setAttribute("data-node", nodeId(u));
}
/** The panel of a drawn link: "h<k>" paper-entity (its evidence), "r<k>" paper-paper (why the
 *  two papers are linked), "c<i>" entity-entity (the papers they share). */
function openLinkPanel(edgeId) {
  const k = parseInt(edgeId.slice(1), 10);
  const body = el("div");
  if (edgeId[0] === "h") {
    const row = HAS[k];
    append(body, append(el("p", "meta", "Paper: "), navButton(row[0])));
    const m = el("p", "meta", TYPES[typeOf(row[1])] + ": ");
    m.appendChild(navButton(row[1], labelOf(row[1])));
    append(body, m, el("p", "meta", "Role: " + ROLES[row[2]] + (row[3] > 1 ? " · " + plural(row[3], "mention") : "")), evidence(row));
    showPanel("Link: " + ROLES[row[2]], body, {});
  } else if (edgeId[0] === "r") {
    const row = REL[k];
    const kind = row[4] || "entities";
    const basis = {
      both: "the two abstracts' TF-IDF cosine; they also share specific entities",
      text: "the two abstracts' TF-IDF cosine; similar text alone, no specific entity in common",
      entities: "the cosine of the two papers' entity vectors, rare entities weighing more",
    };
    append(body, el("p", "meta", "Similarity " + row[2] + ": " + (basis[kind] || basis.entities) + "."));
    const ends = el("ul");
    ends.setAttribute("data-list", "papers");
    for (const p of [row[0], row[1]]) ends.appendChild(append(el("li"), navButton(p)));
    append(body, el("h3", null, "The two papers"), ends);
    const ul = el("ul");
    ul.setAttribute("data-list", "shared");
    (row[3] || []).forEach(([u, share], i) => {
      const li = el("li");
      append(li, swatch(typeOf(u)), " ", navButton(u, labelOf(u)), el("span", "badge", TYPES[typeOf(u)]),
        el("span", "badge", plural(adj().has[u].length, "paper")));
      if (share !== null && share !== undefined) append(li, el("span", "badge contribution", "contribution " + share));
      for (const p of [row[0], row[1]]) {
        const h = adj().has[p].find((kk) => HAS[kk][1] === u);
        if (h !== undefined) append(li, evidence(HAS[h]));
      }
      ul.appendChild(li);
      if (i === 0) li.classList.add("strongest");
    });
    append(body, el("h3", null, "Shared entities, strongest contribution first (" + (row[3] || []).length + ")"), ul);
    if ((row[5] || []).length) {
      const words = el("ul");
      words.setAttribute("data-list", "terms");
      for (const term of row[5]) words.appendChild(el("li", null, term));
      append(body, el("h3", null, "Shared words, weighing most in the text similarity"), words);
    }
    showPanel("Why these papers are linked", body, {});
  } else {
    const e = edgesDS.get(edgeId);
    const a = idToU.get(e.from), b = idToU.get(e.to);
    const papersOf = (u) => new Set(adj().has[u].map((kk) => HAS[kk][0]));
    const pb = papersOf(b);
    const both = Array.from(papersOf(a)).filter((p) => pb.has(p)).sort((p, q) => cmpId(p, q));
    for (const u of [a, b]) append(body, append(el("p", "meta", TYPES[typeOf(u)] + ": "), navButton(u, labelOf(u))));
    const ul = el("ul");
    ul.setAttribute("data-list", "papers");
    const more = moreList(ul, both, (p) => append(el("li"), navButton(p)));
    append(body, el("h3", null, "Papers holding both (" + both.length + ")"), ul, more);
    showPanel("Shared papers", body, {});
  }
  panel.setAttribute("data-node", "");
  panel.setAttribute("data-edge", edgeId);
}
/** A topic's panel: its most specific entities and its papers. */
function openTopicPanel(c, m, opts) {
  const t = COMM.get(c);
  const body = el("div");
  append(body, el("p", "meta", plural(m.size, "paper") + " in this community (Louvain over the similarity links)."));
  const lab = el("ul");
  lab.setAttribute("data-list", "labels");
  for (const u of t[2]) {
    const n = m.held.get(u) || 0;
    append(lab, append(el("li"), swatch(typeOf(u)), " ", navButton(u, labelOf(u)),
      el("span", "badge", fmt(n) + " of its papers · " + fmt(adj().has[u].length) + " in all")));
  }
  if (t[2].length) append(body, el("h3", null, "Most specific entities"), lab);
  const ul = el("ul");
  ul.setAttribute("data-list", "papers");
  const more = moreList(ul, m.papers, (p) => append(el("li"), navButton(p)));
  append(body, el("h3", null, "Papers, most linked first (" + m.papers.length + (m.papers.length < m.size ? " of " + m.size : "") + ")"), ul, more);
  showPanel("Topic: " + topicName(c), body, opts);
  panel.setAttribute("data-node", TOPIC_PREFIX + c);
}
function closePanel(restore) {
  if (panel.hidden) return;
  panel.hidden = true;
  panel.removeAttribute("data-node");
  if (restore !== false && lastFocus && doc.contains(lastFocus)) lastFocus.focus();
  lastFocus = null;
}
$("panel-close").addEventListener("click", () => { deselect(); closePanel(true); });
