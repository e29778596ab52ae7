/* Search with suggestions over every paper and entity. */
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
    if (!nodesDS.get(nodeId(r.u))) {
      const topic = META.view === "overview" && r.u < NP && nodesDS.get(TOPIC_PREFIX + topicOfPaper(r.u));
      sub += topic ? " · opens its topic" : " · opens its neighbourhood";
    }
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
