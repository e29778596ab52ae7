// Loader: Result nodes, each with the REPORTS relationship from its paper (written here, so a
// Result never exists without its paper). row = {id, paper_id, index, value, start, end,
// number, upper, unit, kind, evidence, direction}; id is the graph's node id
// "result:<paper_id>:<index>". A null value removes the property, so a re-load mirrors the file.
// The index hint keeps the plan a seek even when the statistics are stale.
UNWIND $rows AS row
MATCH (p:Paper {id: row.paper_id})
USING INDEX SEEK p:Paper(id)
MERGE (r:Result {id: row.id})
SET r.paper_id = row.paper_id,
    r.index = row.index,
    r.value = row.value,
    r.start = row.start,
    r.end = row.end,
    r.number = row.number,
    r.upper = row.upper,
    r.unit = row.unit,
    r.kind = row.kind,
    r.evidence = row.evidence,
    r.direction = row.direction
MERGE (p)-[:REPORTS]->(r)
