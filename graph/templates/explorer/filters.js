/* Filters, legend and status: only what the current view holds. */
/* ---------------------------------------------------------------- filters + legend + status */
const typeOn = TYPES.map(() => true);
const roleOn = ROLES.map(() => true);
const typeBoxes = [];
const roleBoxes = [];
const hiddenState = new Map();
/* One filter checkbox, on at first, switching on[i]; its count goes in the span countId. */
function filterBox(value, on, i, boxes, countId, ...marks) {
  const label = el("label");
  const box = el("input");
  box.type = "checkbox";
  box.checked = true;
  box.value = value;
  box.addEventListener("change", () => { on[i] = box.checked; applyFilters(); });
  boxes.push(box);
  const count = el("span", "count");
  count.id = countId;
  append(label, box, ...marks, " " + value, count);
  return label;
}
function buildFilters() {
  const typeOpts = $("type-options");
  TYPES.forEach((t, i) => typeOpts.appendChild(filterBox(t, typeOn, i, typeBoxes, "type-count-" + i, swatch(i))));
  const roleOpts = $("role-options");
  ROLES.forEach((r, i) => roleOpts.appendChild(filterBox(r, roleOn, i, roleBoxes, "role-count-" + i)));
  const legend = $("legend-types");
  TYPES.forEach((t, i) => {
    const li = el("li");
    const count = el("span", "count");
    count.id = "legend-count-" + i;
    append(li, swatch(i), " " + t, count);
    legend.appendChild(li);
  });
  $("reset-filters").addEventListener("click", () => resetFilters());
}
function resetFilters() {
  typeBoxes.forEach((b, i) => { b.checked = true; typeOn[i] = true; });
  roleBoxes.forEach((b, i) => { b.checked = true; roleOn[i] = true; });
  applyFilters();
}
function applyFilters() {
  const vis = new Map();
  const typeTotal = TYPES.map(() => 0);
  const typeShown = TYPES.map(() => 0);
  for (const id of cur.nodes) vis.set(id, isTopic(id) || typeOn[typeOf(idToU.get(id))]);
  const hasAny = new Set();
  const hasRole = new Set();
  const roleTotal = ROLES.map(() => 0);
  for (const e of cur.edges) {
    if (e.kind !== "HAS") continue;
    roleTotal[e.role]++;
    hasAny.add(e.to);
    if (roleOn[e.role]) hasRole.add(e.to);
  }
  for (const id of hasAny) if (!hasRole.has(id)) vis.set(id, false);
  const nodeUpd = [];
  let shownNodes = 0;
  let topics = 0;
  for (const id of cur.nodes) {
    const v = vis.get(id);
    if (v) shownNodes++;
    if (isTopic(id)) { topics++; continue; }
    const t = typeOf(idToU.get(id));
    typeTotal[t]++;
    if (v) typeShown[t]++;
    if (hiddenState.get(id) !== !v) { hiddenState.set(id, !v); nodeUpd.push({ id, hidden: !v }); }
  }
  const edgeUpd = [];
  let shownEdges = 0;
  for (const e of cur.edges) {
    const v = vis.get(e.from) && vis.get(e.to) && (e.kind !== "HAS" || roleOn[e.role]);
    if (v) shownEdges++;
    if (hiddenState.get(e.id) !== !v) { hiddenState.set(e.id, !v); edgeUpd.push({ id: e.id, hidden: !v }); }
  }
  if (nodeUpd.length) nodesDS.update(nodeUpd);
  if (edgeUpd.length) edgesDS.update(edgeUpd);
  // only what this view holds: a type or role the view does not draw gets no row (no 0/0)
  TYPES.forEach((t, i) => {
    $("type-count-" + i).textContent = fmt(typeShown[i]) + "/" + fmt(typeTotal[i]);
    typeBoxes[i].parentElement.hidden = typeTotal[i] === 0 && typeOn[i];
    $("legend-count-" + i).textContent = fmt(typeTotal[i]) + " drawn · " + fmt(i === 0 ? META.stats.papers : (META.stats.by_type[t] || 0));
    $("legend-count-" + i).parentElement.hidden = typeTotal[i] === 0;
  });
  $("type-filter").hidden = typeBoxes.every((b) => b.parentElement.hidden);
  ROLES.forEach((r, i) => {
    $("role-count-" + i).textContent = fmt(roleTotal[i]);
    roleBoxes[i].parentElement.hidden = roleTotal[i] === 0 && roleOn[i];
  });
  const anyHas = roleTotal.some((n) => n > 0);
  $("role-filter").hidden = !anyHas;
  $("reset-filters").hidden = !anyHas && $("type-filter").hidden;
  $("legend-topics").hidden = topics === 0;
  $("legend-topic-count").textContent = fmt(topics) + " drawn";
  const kinds = new Set(cur.edges.map((e) => (e.kind === "HAS" ? ROLES[e.role] : e.kind)));
  doc.querySelectorAll(".legend-edges li").forEach((li) => { li.hidden = !kinds.has(li.dataset.kind); });
  const status = $("filter-status");
  const filtered = typeOn.some((x) => !x) || roleOn.some((x) => !x);
  status.textContent = "Showing " + fmt(shownNodes) + " of " + plural(cur.nodes.length, "node") +
    " and " + fmt(shownEdges) + " of " + plural(cur.edges.length, "link") + (filtered ? " (filtered)." : ".");
  status.classList.toggle("warn", cur.nodes.length > 0 && shownNodes === 0);
  if (cur.nodes.length > 0 && shownNodes === 0) status.textContent += " Every node is hidden by the filters: use “Reset filters”.";
  $("reset-filters").classList.toggle("attention", filtered);
  $("drawn").textContent = plural(cur.nodes.length, "node") + " · " + plural(cur.edges.length, "edge");
  const empty = $("empty");
  empty.hidden = cur.nodes.length > 0;
  if (!cur.nodes.length) {
    empty.textContent = META.view === "similarity" ? "This graph has no similarity links to draw."
      : META.view === "overview" ? "No topics: this graph has no similarity links. The search still finds every paper and entity."
      : "This graph has no nodes to draw.";
  }
  return { shownNodes, shownEdges };
}
