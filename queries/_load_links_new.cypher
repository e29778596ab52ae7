// Loader: paper -> paper similarity links whose source paper was not in the database when the
// load started: no link of it can exist yet, so CREATE. row = {source, targets, weights, shared, reasons, evidence},
// as in _load_links.cypher.
UNWIND $rows AS row
MATCH (a:Paper {id: row.source})
USING INDEX SEEK a:Paper(id)
WITH a, row
UNWIND range(0, size(row.targets) - 1) AS i
MATCH (b:Paper {id: row.targets[i]})
USING INDEX SEEK b:Paper(id)
CREATE (a)-[r:RELATED_TO]->(b)
SET r.weight = row.weights[i],
    r.shared = row.shared[i],
    r.reason = row.reasons[i],
    r.evidence = row.evidence[i]
