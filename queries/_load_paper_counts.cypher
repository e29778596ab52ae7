// Loader, last step: paper_count is recomputed from the relationships in the database (never
// taken from the file), so incremental loads keep it right. Only changed values are written.
MATCH (e:Entity)
WITH e, COUNT { (e)<-[:PROPOSES|USES|MENTIONS]-(:Paper) } AS n
WHERE e.paper_count IS NULL OR e.paper_count <> n
SET e.paper_count = n
