// Tasks a method is applied to: tasks that occur in papers linked to the method, by the
// number of such papers; ties by key.
// param: method entity -- the Method key, e.g. diffusion model
// param: k int = 20 -- rows to return
// returns: key, name, papers
MATCH (m:Entity {key: $method})<-[:PROPOSES|USES|MENTIONS]-(p:Paper)-[:PROPOSES|USES|MENTIONS]->(t:Task)
WHERE t <> m
RETURN t.key AS key, t.name AS name, count(p) AS papers
ORDER BY papers DESC, key
LIMIT $k
