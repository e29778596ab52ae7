// Papers similar to a paper: its RELATED_TO links (the abstracts' TF-IDF cosine, with shared
// specific entities or alone, as link_kind says; see graph/linking.py), strongest first; ties
// by paper id. shared = the shared entity keys, strongest first; terms = the shared words.
// param: paper paper -- the paper id
// param: k int = 10 -- rows to return
// returns: paper_id, label, weight, link_kind, shared, terms
MATCH (a:Paper {id: $paper})-[r:RELATED_TO]-(b:Paper)
RETURN b.id AS paper_id, b.label AS label, r.weight AS weight, coalesce(r.link_kind, 'entities') AS link_kind,
       coalesce(r.shared, []) AS shared, coalesce(r.terms, []) AS terms
ORDER BY weight DESC, paper_id
LIMIT $k
