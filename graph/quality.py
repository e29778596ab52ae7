"""How trustworthy a graph is: duplicate candidates, singletons, roles, and link evidence.

``paperkg stats`` prints these, and ``bench/bench_resolution.py`` measures them on the ICML 2024
build. Every function takes the graph and returns plain rows, deterministic (ties by key or id).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from statistics import median

import networkx as nx

from paperkg.extract.nlp.abbreviations import is_short_form
from paperkg.extract.nlp.normalize import generic_head, variant_key
from paperkg.graph.build import entity_nodes, paper_nodes
from paperkg.types import ENTITY_TYPES, ROLES

_STOP = frozenset("of for and the with in on to a an from by via".split())


def _initials(name: str) -> set[str]:
    """The initials of a name's content words, with hyphenated words split or whole.

    >>> sorted(_initials("Generative Pre-trained Transformer"))
    ['gpt', 'gptt']
    """
    words = [w for w in name.casefold().split() if w not in _STOP]
    whole = "".join(w[0] for w in words if w[0].isalnum())
    split = "".join(p[0] for w in words for p in w.split("-") if p and p[0].isalnum())
    return {whole, split}


def _is_acronym(name: str) -> bool:
    """An acronym written as one: mostly capitals ("MDP", "DNNs", "PEFT"; not "Adam")."""
    letters = [c for c in name if c.isalpha()]
    return (" " not in name and is_short_form(name) and len(letters) >= 2
            and sum(c.isupper() for c in letters) * 2 >= len(letters) + (name.endswith("s") and 1))


def duplicate_candidates(graph: nx.DiGraph, *, min_papers: int = 2, skip_acronyms: frozenset[str] = frozenset()) -> list[dict]:
    """Groups of entity nodes (each in ``min_papers`` or more papers) that look like one concept.

    Two kinds, joined into groups: *variants*, nodes whose keys are equal once spaces, hyphens and
    a trailing generic head word are dropped ("pre-trained model" / "pretrained models",
    "ImageNet" / "ImageNet dataset"); and *acronym pairs*, an acronym node (mostly capitals) and
    a node whose content words' initials spell it ("MDP" / "Markov decision process"). ``skip_acronyms`` (keys) are acronyms known
    to be ambiguous, which rightly stay apart. Rows: ``{"keys": [...], "kinds": [...], "papers": [...]}``,
    largest groups first.

    >>> g = nx.DiGraph()
    >>> for key, name, n in [("mdp", "MDP", 3), ("markov decision process", "Markov decision process", 5),
    ...                      ("imagenet", "ImageNet", 9), ("imagenet dataset", "ImageNet dataset", 2), ("x", "X", 1)]:
    ...     g.add_node("entity:" + key, kind="Entity", key=key, name=name, paper_count=n)
    >>> [(r["keys"], r["kinds"]) for r in duplicate_candidates(g)]
    [(['imagenet', 'imagenet dataset'], ['variant']), (['markov decision process', 'mdp'], ['acronym'])]
    """
    nodes = [n for n in entity_nodes(graph) if graph.nodes[n].get("paper_count", 0) >= min_papers]
    parent = {n: n for n in nodes}
    kinds: dict[str, set[str]] = defaultdict(set)

    def find(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    def union(a: str, b: str, kind: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
        kinds[a].add(kind)
        kinds[b].add(kind)

    by_variant: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        key = graph.nodes[node]["key"]
        by_variant[variant_key(generic_head(key) or key)].append(node)
    for group in by_variant.values():
        for other in group[1:]:
            union(group[0], other, "variant")
    by_initials: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        name = graph.nodes[node].get("name") or graph.nodes[node]["key"]
        if " " in name.strip():
            for initials in _initials(name):
                by_initials[initials].append(node)
    for node in nodes:
        attrs = graph.nodes[node]
        name = attrs.get("name") or attrs["key"]
        if " " in attrs["key"] or not _is_acronym(name) or attrs["key"] in skip_acronyms:
            continue
        letters = "".join(c for c in name.lower() if c.isalnum())
        letters = letters[:-1] if name.endswith("s") and len(letters) > 2 else letters
        for other in by_initials.get(letters, ()):
            if other != node:
                union(node, other, "acronym")
    groups: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        groups[find(node)].append(node)
    rows = []
    for members in groups.values():
        if len(members) > 1:
            members.sort(key=lambda n: graph.nodes[n]["key"])
            rows.append({"keys": [graph.nodes[n]["key"] for n in members],
                         "kinds": sorted(set().union(*(kinds[n] for n in members))),
                         "papers": [graph.nodes[n].get("paper_count", 0) for n in members]})
    rows.sort(key=lambda r: (-len(r["keys"]), -sum(r["papers"]), r["keys"]))
    return rows


def duplicate_rate(graph: nx.DiGraph, candidates: list[dict] | None = None, *, min_papers: int = 2) -> float:
    """Share of the entities in ``min_papers`` or more papers that duplicate another node (each
    group of n counts n - 1)."""
    candidates = duplicate_candidates(graph, min_papers=min_papers) if candidates is None else candidates
    population = sum(1 for n in entity_nodes(graph) if graph.nodes[n].get("paper_count", 0) >= min_papers)
    return sum(len(r["keys"]) - 1 for r in candidates) / population if population else 0.0


def entity_profile(graph: nx.DiGraph) -> dict:
    """Singleton share, entities per type, paper-entity edges per type and role."""
    entities = entity_nodes(graph)
    singletons = sum(1 for n in entities if graph.nodes[n].get("paper_count", 0) <= 1)
    roles: dict[str, Counter] = {t: Counter() for t in ENTITY_TYPES}
    for _, target, data in graph.edges(data=True):
        if data.get("kind") == "HAS":
            roles[graph.nodes[target]["type"]][data["role"]] += 1
    return {
        "singleton_share": round(singletons / len(entities), 4) if entities else 0.0,
        "singletons": singletons,
        "entities_by_type": dict(Counter(graph.nodes[n]["type"] for n in entities)),
        "edges_by_type_and_role": {t: {r: roles[t].get(r, 0) for r in ROLES} for t in ENTITY_TYPES},
    }


def link_profile(graph: nx.DiGraph) -> dict:
    """Links per paper (distribution), papers at the cap, and the evidence the links rest on."""
    degree: Counter = Counter()
    links = [d for _, _, d in graph.edges(data=True) if d.get("kind") == "RELATED_TO"]
    for source, target, kind in graph.edges(data="kind"):
        if kind == "RELATED_TO":
            degree[source] += 1
            degree[target] += 1
    papers = paper_nodes(graph)
    counts = [degree[p] for p in papers]
    cap = graph.graph.get("top_k")
    buckets = {"0": 0, "1": 0, "2-5": 0, "6-10": 0, "11-19": 0, "20+": 0}
    for c in counts:
        label = "0" if c == 0 else "1" if c == 1 else "2-5" if c <= 5 else "6-10" if c <= 10 else "11-19" if c < 20 else "20+"
        buckets[label] += 1
    with_entities = [d for d in links if d.get("shared")]
    one = sum(1 for d in with_entities if len(d["shared"]) == 1)
    return {
        "links": len(links),
        "links_by_kind": dict(sorted(Counter(d.get("link_kind") or "entities" for d in links).items())),
        "papers_without_links": buckets["0"],
        "papers_at_cap": sum(1 for c in counts if cap and c >= cap),
        "cap": cap,
        "links_per_paper": {"mean": round(sum(counts) / len(counts), 2) if counts else 0.0,
                            "median": median(counts) if counts else 0, "max": max(counts, default=0),
                            "histogram": buckets},
        # of the links that share entities: text links share none
        "links_on_one_entity": round(one / len(with_entities), 4) if with_entities else 0.0,
    }


def most_linked_by_evidence(graph: nx.DiGraph, k: int = 10) -> list[dict]:
    """Papers by the total weight of their links (the evidence behind them), not by their count."""
    strength: Counter = Counter()
    degree: Counter = Counter()
    top: dict[str, tuple[float, str]] = {}
    for source, target, data in graph.edges(data=True):
        if data.get("kind") != "RELATED_TO":
            continue
        for end in (source, target):
            strength[end] += data["weight"]
            degree[end] += 1
            if end not in top or data["weight"] > top[end][0]:
                top[end] = (data["weight"], data.get("reason", ""))
    rows = [{"paper_id": graph.nodes[n]["paper_id"], "label": graph.nodes[n].get("label"), "links": degree[n],
             "evidence": round(strength[n], 4), "strongest": top[n][1]} for n in strength]
    rows.sort(key=lambda r: (-r["evidence"], -r["links"], r["paper_id"]))
    return rows[:k]


def read_pairs(path) -> list[dict]:
    """A labelled list of name pairs (JSONL: ``name_a``, ``type_a``, ``name_b``, ``type_b``,
    ``label`` ``twin`` or ``apart``, ``note``), such as ``tests/resolution_pairs.jsonl``."""
    import json
    from pathlib import Path

    from paperkg.errors import InputError

    rows = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            if row.get("label") not in ("twin", "apart") or not row.get("name_a") or not row.get("name_b"):
                raise InputError(f"{path}:{number}: a pair needs name_a, name_b and label twin or apart")
            rows.append(row)
    return rows


def pair_scores(graph: nx.DiGraph, pairs: list[dict]) -> dict:
    """Resolution scored against labelled pairs: a *twin* pair is right when both names resolve
    to one node, an *apart* pair when they resolve to two (a wrong merge otherwise). A name
    resolves through the nodes' ``alias_keys`` (the node of its type first, then the one in most
    papers); pairs with a name the graph lacks are ``absent``.

    >>> g = nx.DiGraph()
    >>> g.add_node("entity:mdp", kind="Entity", key="markov decision process", type="Method", paper_count=9,
    ...            alias_keys=["markov decision process", "mdp"])
    >>> g.add_node("entity:dl", kind="Entity", key="deep learning", type="Method", paper_count=5, alias_keys=["deep learning"])
    >>> s = pair_scores(g, [{"name_a": "MDPs", "name_b": "Markov decision process", "label": "twin"},
    ...                     {"name_a": "deep learning", "name_b": "MDP", "label": "apart"},
    ...                     {"name_a": "DL", "name_b": "deep learning", "label": "twin"}])
    >>> s["twins"], s["twins_folded"], s["apart"], s["wrong_merges"], len(s["absent"])
    (1, 1, 1, [], 1)
    """
    from paperkg.extract.nlp.normalize import normalize_key

    by_alias: dict[str, list[str]] = defaultdict(list)
    for node in entity_nodes(graph):
        for key in graph.nodes[node].get("alias_keys") or [graph.nodes[node]["key"]]:
            by_alias[key].append(node)

    def node_of(name: str, type_: str | None) -> str | None:
        found = by_alias.get(normalize_key(name), [])
        return min(found, key=lambda n: (graph.nodes[n].get("type") != type_, -graph.nodes[n].get("paper_count", 0), n),
                   default=None)

    scores: dict = {"twins": 0, "twins_folded": 0, "apart": 0, "kept_apart": 0, "wrong_merges": [],
                    "unfolded": [], "absent": []}
    for pair in pairs:
        a, b = node_of(pair["name_a"], pair.get("type_a")), node_of(pair["name_b"], pair.get("type_b"))
        names = f"{pair['name_a']} / {pair['name_b']}"
        if a is None or b is None:
            scores["absent"].append(names)
        elif pair["label"] == "twin":
            scores["twins"] += 1
            scores["twins_folded"] += a == b
            if a != b:
                scores["unfolded"].append(names)
        else:
            scores["apart"] += 1
            scores["kept_apart"] += a != b
            if a == b:
                scores["wrong_merges"].append(names)
    return scores
