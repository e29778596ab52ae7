// Loader: paper -> entity relationships with role "used", for papers that were not in the
// database when the load started: no relationship of theirs can exist yet, so CREATE (about
// twice as fast as MERGE). A re-run after a kill sees these papers as existing and MERGEs.
// row = {paper, keys, counts, evidence, offsets}, as in _load_rel_uses.cypher.
UNWIND $rows AS row
MATCH (p:Paper {id: row.paper})
USING INDEX SEEK p:Paper(id)
WITH p, row
UNWIND range(0, size(row.keys) - 1) AS i
MATCH (e:Entity {key: row.keys[i]})
USING INDEX SEEK e:Entity(key)
CREATE (p)-[r:USES]->(e)
SET r.count = row.counts[i],
    r.evidence = row.evidence[i],
    r.evidence_offset = row.offsets[i]
