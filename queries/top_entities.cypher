// The most frequent entities of each type (or of one type): the entities linked to the most
// papers, per type in the order Method, Dataset, Benchmark, Task, Metric; ties by key.
// param: type enum(Method|Dataset|Benchmark|Task|Metric) = null -- only this entity type (all types when omitted)
// param: k int = 10 -- rows per type
// returns: type, key, name, paper_count
WITH ['Method', 'Dataset', 'Benchmark', 'Task', 'Metric'] AS types
UNWIND range(0, size(types) - 1) AS i
WITH i, types[i] AS type
WHERE $type IS NULL OR type = $type
CALL (type) {
  MATCH (e:Entity {type: type})
  RETURN e
  ORDER BY e.paper_count DESC, e.key
  LIMIT $k
}
RETURN type, e.key AS key, e.name AS name, e.paper_count AS paper_count
ORDER BY i, paper_count DESC, key
