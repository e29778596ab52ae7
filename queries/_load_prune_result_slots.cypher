// Loader: delete the slot relationships of a paper's kept Result nodes that its current
// extraction does not have (a re-extraction bound a result to another dataset, say).
// row = {id, keep}; keep = the "TYPE:index:key" strings of the paper's slot relationships in
// the file (TYPE is one of ON_DATASET, MEASURED_BY, ACHIEVED_BY, FOR_TASK and index an integer,
// so the string is unambiguous within one paper).
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})-[:REPORTS]->(r:Result)-[s:ON_DATASET|MEASURED_BY|ACHIEVED_BY|FOR_TASK]->(e:Entity)
USING INDEX SEEK p:Paper(id)
WHERE NOT (type(s) + ':' + toString(r.index) + ':' + e.key) IN row.keep
DELETE s
