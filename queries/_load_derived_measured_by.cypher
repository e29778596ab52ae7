// Loader, last steps: the derived Task -[:MEASURED_BY {count}]-> Metric relationships, recomputed in Neo4j
// from every Result that holds both ends (its :FOR_TASK and its :MEASURED_BY entity), as the graph's
// add_result_edges does; never taken from the file, so incremental loads keep the counts right.
// Relationships no Result supports any more are deleted; only changed counts are written.
CALL () {
  MATCH (a:Entity)-[d:MEASURED_BY]->(b:Entity)
  WHERE NOT EXISTS { (a)<-[:FOR_TASK]-(:Result)-[:MEASURED_BY]->(b) }
  DELETE d
}
MATCH (a:Entity)<-[:FOR_TASK]-(r:Result)-[:MEASURED_BY]->(b:Entity)
WITH a, b, count(r) AS n
MERGE (a)-[d:MEASURED_BY]->(b)
WITH d, n
WHERE d.count IS NULL OR d.count <> n
SET d.count = n
