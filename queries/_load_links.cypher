// Loader: paper -> paper similarity links, stored once from the smaller paper id to the larger.
// One row per source paper, its links as parallel lists:
// row = {source, targets, weights, shared, reasons, evidence, kinds, terms}.
// The index hints keep the plan a seek even when the statistics are stale.
UNWIND $rows AS row
MATCH (a:Paper {id: row.source})
USING INDEX SEEK a:Paper(id)
WITH a, row
UNWIND range(0, size(row.targets) - 1) AS i
MATCH (b:Paper {id: row.targets[i]})
USING INDEX SEEK b:Paper(id)
MERGE (a)-[r:RELATED_TO]->(b)
SET r.weight = row.weights[i],
    r.shared = row.shared[i],
    r.reason = row.reasons[i],
    r.evidence = row.evidence[i],
    r.link_kind = row.kinds[i],
    r.terms = row.terms[i]
