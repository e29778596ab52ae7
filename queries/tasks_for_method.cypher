// Tasks a method is applied to: tasks that occur in papers linked to the method, by the
// number of such papers; ties by key.
// param: method entity -- the Method name, key, alias or acronym, e.g. diffusion model or SAC
// param: k int = 20 -- rows to return
// The entity is the one whose key is the value, else the most-mentioned one listing it in alias_keys.
// returns: key, name, papers
MATCH (candidate:Entity) WHERE candidate.key = $method OR $method IN candidate.alias_keys
WITH candidate AS m ORDER BY m.key = $method DESC, m.paper_count DESC, m.key LIMIT 1
MATCH (m)<-[:PROPOSES|USES|MENTIONS]-(p:Paper)-[:PROPOSES|USES|MENTIONS]->(t:Task)
WHERE t <> m
RETURN t.key AS key, t.name AS name, count(p) AS papers
ORDER BY papers DESC, key
LIMIT $k
