// What a paper proposes: the entities it introduces (role "proposed"), with the mention
// count and the evidence sentence; by key.
// param: paper paper -- the paper id
// returns: key, name, type, count, evidence
MATCH (p:Paper {id: $paper})-[r:PROPOSES]->(e:Entity)
RETURN e.key AS key, e.name AS name, e.type AS type, r.count AS count, r.evidence AS evidence
ORDER BY key
