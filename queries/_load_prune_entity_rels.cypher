// The USING INDEX SEEK hint pins the plan to a seek of the paper: on a freshly emptied database
// the planner, misled by stale statistics, otherwise may scan the whole index for every row.
// Loader: the file is the truth for the papers it contains. Delete each paper's entity
// relationships that its current extraction does not have, or has with another role.
// row = {id, keep}; keep = the "TYPE:key" strings of the paper's relationships in the file
// (TYPE is one of PROPOSES, USES, MENTIONS, so the string is unambiguous).
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})-[r:PROPOSES|USES|MENTIONS]->(e:Entity)
USING INDEX SEEK p:Paper(id)
WHERE NOT (type(r) + ':' + e.key) IN row.keep
DELETE r
