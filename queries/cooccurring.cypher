// Entities co-occurring with an entity: entities that appear in the same papers, by the
// number of shared papers; ties by key.
// param: entity entity -- the entity's name, key, alias or acronym, e.g. reinforcement learning
// param: k int = 10 -- rows to return
// The entity is the one whose key is the value, else the most-mentioned one listing it in alias_keys.
// returns: key, name, type, papers
MATCH (candidate:Entity) WHERE candidate.key = $entity OR $entity IN candidate.alias_keys
WITH candidate AS e ORDER BY e.key = $entity DESC, e.paper_count DESC, e.key LIMIT 1
MATCH (e)<-[:PROPOSES|USES|MENTIONS]-(p:Paper)-[:PROPOSES|USES|MENTIONS]->(o:Entity)
WHERE o <> e
RETURN o.key AS key, o.name AS name, o.type AS type, count(p) AS papers
ORDER BY papers DESC, key
LIMIT $k
