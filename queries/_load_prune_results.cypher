// Loader: the file is the truth for the papers it contains. Delete each paper's Result nodes
// (with their relationships) that its current extraction does not have.
// row = {id, keep}; keep = the Result ids of the paper in the file.
// The USING INDEX SEEK hint pins the plan to a seek of the paper (see _load_prune_entity_rels).
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})-[:REPORTS]->(r:Result)
USING INDEX SEEK p:Paper(id)
WHERE NOT r.id IN row.keep
DETACH DELETE r
