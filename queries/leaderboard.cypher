// A leaderboard: the scores reported on a dataset or benchmark (optionally for one metric and
// one task), grouped by metric (results without one last), best first where the metric's
// direction is known (Result.direction), then by paper id and place in the abstract. Gains
// ("3x faster") are not scores and are left out; see results_for.
// Empty when the entity is not a Dataset or Benchmark, or a given metric or task is unknown.
// param: dataset entity -- the Dataset or Benchmark name, key, alias or acronym, e.g. ImageNet
// param: metric entity = null -- only scores measured by this metric, e.g. top-1 accuracy
// param: task entity = null -- only scores for this task
// param: k int = 50 -- rows to return
// An entity is the one whose key is the value, else the most-mentioned one listing it in alias_keys.
// returns: metric, method, value, number, unit, direction, task, paper_id, label, evidence
MATCH (candidate:Entity) WHERE candidate.key = $dataset OR $dataset IN candidate.alias_keys
WITH candidate AS d ORDER BY d.key = $dataset DESC, d.paper_count DESC, d.key LIMIT 1
WITH d WHERE d.type IN ['Dataset', 'Benchmark']
OPTIONAL MATCH (candidate:Entity) WHERE candidate.key = $metric OR $metric IN candidate.alias_keys
WITH d, candidate AS wanted_metric ORDER BY wanted_metric.key = $metric DESC, wanted_metric.paper_count DESC, wanted_metric.key LIMIT 1
WITH d, wanted_metric WHERE $metric IS NULL OR wanted_metric IS NOT NULL
OPTIONAL MATCH (candidate:Entity) WHERE candidate.key = $task OR $task IN candidate.alias_keys
WITH d, wanted_metric, candidate AS wanted_task ORDER BY wanted_task.key = $task DESC, wanted_task.paper_count DESC, wanted_task.key LIMIT 1
WITH d, wanted_metric, wanted_task WHERE $task IS NULL OR wanted_task IS NOT NULL
MATCH (p:Paper)-[:REPORTS]->(r:Result {kind: 'score'})-[:ON_DATASET]->(d)
WHERE (wanted_metric IS NULL OR (r)-[:MEASURED_BY]->(wanted_metric)) AND (wanted_task IS NULL OR (r)-[:FOR_TASK]->(wanted_task))
OPTIONAL MATCH (r)-[:MEASURED_BY]->(m:Entity)
OPTIONAL MATCH (r)-[:ACHIEVED_BY]->(a:Entity)
OPTIONAL MATCH (r)-[:FOR_TASK]->(t:Entity)
// The slot variables are not named like the columns: ORDER BY sees a column, not the node.
RETURN m.name AS metric, a.name AS method, r.value AS value, r.number AS number, r.unit AS unit,
       r.direction AS direction, t.name AS task, p.id AS paper_id, p.label AS label, r.evidence AS evidence
ORDER BY m.key IS NULL, coalesce(m.key, ''),
         CASE r.direction WHEN 'higher' THEN -r.number WHEN 'lower' THEN r.number ELSE 0.0 END, paper_id, r.index
LIMIT $k
