// Papers that share entities with a paper (every paper, not only the stored RELATED_TO links),
// by the number of shared entities; ties by paper id. entities = the shared keys, sorted.
// param: paper paper -- the paper id
// param: k int = 10 -- rows to return
// returns: paper_id, label, shared, entities
MATCH (a:Paper {id: $paper})-[:PROPOSES|USES|MENTIONS]->(e:Entity)<-[:PROPOSES|USES|MENTIONS]-(b:Paper)
WHERE b <> a
WITH b, e
ORDER BY e.key
WITH b, collect(e.key) AS entities
RETURN b.id AS paper_id, b.label AS label, size(entities) AS shared, entities
ORDER BY shared DESC, paper_id
LIMIT $k
