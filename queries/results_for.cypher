// A method's results: every number reported for it (scores and gains), with the metric,
// dataset and task of each and the sentence; by paper id and place in the abstract.
// param: method entity -- the Method name, key, alias or acronym, e.g. LoRA
// param: k int = 50 -- rows to return
// The entity is the one whose key is the value, else the most-mentioned one listing it in alias_keys.
// returns: paper_id, label, value, number, unit, kind, metric, dataset, task, evidence
MATCH (candidate:Entity) WHERE candidate.key = $method OR $method IN candidate.alias_keys
WITH candidate AS m ORDER BY m.key = $method DESC, m.paper_count DESC, m.key LIMIT 1
MATCH (p:Paper)-[:REPORTS]->(r:Result)-[:ACHIEVED_BY]->(m)
OPTIONAL MATCH (r)-[:MEASURED_BY]->(metric:Entity)
OPTIONAL MATCH (r)-[:ON_DATASET]->(dataset:Entity)
OPTIONAL MATCH (r)-[:FOR_TASK]->(task:Entity)
RETURN p.id AS paper_id, p.label AS label, r.value AS value, r.number AS number, r.unit AS unit, r.kind AS kind,
       metric.name AS metric, dataset.name AS dataset, task.name AS task, r.evidence AS evidence
ORDER BY paper_id, r.index
LIMIT $k
