// Loader: the file is the truth for the papers it contains. Delete each paper's entity
// relationships that its current extraction no longer has. row = {id, keys}.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})-[r:PROPOSES|USES|MENTIONS]->(e:Entity)
WHERE NOT e.key IN row.keys
DELETE r
