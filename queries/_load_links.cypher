// Loader: paper -> paper similarity links. row = {source, target, weight, shared}; source < target.
UNWIND $rows AS row
MATCH (a:Paper {id: row.source})
MATCH (b:Paper {id: row.target})
MERGE (a)-[r:RELATED_TO]->(b)
SET r.weight = row.weight,
    r.shared = row.shared
