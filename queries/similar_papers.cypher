// Papers similar to a paper: its RELATED_TO links (IDF-weighted cosine over shared entities,
// each paper's top_k strongest kept at build time), strongest first; ties by paper id.
// shared = the shared entity keys, rarest first.
// param: paper paper -- the paper id
// param: k int = 10 -- rows to return
// returns: paper_id, label, weight, shared
MATCH (a:Paper {id: $paper})-[r:RELATED_TO]-(b:Paper)
RETURN b.id AS paper_id, b.label AS label, r.weight AS weight, coalesce(r.shared, []) AS shared
ORDER BY weight DESC, paper_id
LIMIT $k
