// Entities co-occurring with an entity: entities that appear in the same papers, by the
// number of shared papers; ties by key.
// param: entity entity -- the entity key, e.g. reinforcement learning
// param: k int = 10 -- rows to return
// returns: key, name, type, papers
MATCH (e:Entity {key: $entity})<-[:PROPOSES|USES|MENTIONS]-(p:Paper)-[:PROPOSES|USES|MENTIONS]->(o:Entity)
WHERE o <> e
RETURN o.key AS key, o.name AS name, o.type AS type, count(p) AS papers
ORDER BY papers DESC, key
LIMIT $k
