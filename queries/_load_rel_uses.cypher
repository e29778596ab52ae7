// Loader: paper -> entity relationships with role "used". One row per paper, its relationships as
// parallel lists: row = {paper, keys, counts, evidence, offsets, confidences} (grouping by paper saves one
// index lookup and one map per relationship). A relationship of another role between the same
// paper and entity (an older extraction) was deleted by _load_prune_entity_rels. The index hints
// keep the plan a seek even when the statistics are stale (e.g. on a freshly emptied database).
UNWIND $rows AS row
MATCH (p:Paper {id: row.paper})
USING INDEX SEEK p:Paper(id)
WITH p, row
UNWIND range(0, size(row.keys) - 1) AS i
MATCH (e:Entity {key: row.keys[i]})
USING INDEX SEEK e:Entity(key)
MERGE (p)-[r:USES]->(e)
SET r.count = row.counts[i],
    r.evidence = row.evidence[i],
    r.evidence_offset = row.offsets[i],
    r.confidence = row.confidences[i]
