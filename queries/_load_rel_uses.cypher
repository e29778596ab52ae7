// Loader: paper -> entity relationships with role "used". row = {paper, key, count, evidence, evidence_offset}.
// A paper has one relationship per entity: one of another role (an older extraction) is deleted.
UNWIND $rows AS row
MATCH (p:Paper {id: row.paper})
MATCH (e:Entity {key: row.key})
MERGE (p)-[r:USES]->(e)
SET r.count = row.count,
    r.evidence = row.evidence,
    r.evidence_offset = row.evidence_offset
WITH p, e
OPTIONAL MATCH (p)-[old:PROPOSES|MENTIONS]->(e)
DELETE old
