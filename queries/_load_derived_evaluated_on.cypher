// Loader, last steps: the derived Method -[:EVALUATED_ON {count}]-> Dataset/Benchmark relationships, recomputed in Neo4j
// from every Result that holds both ends (its :ACHIEVED_BY and its :ON_DATASET entity), as the graph's
// add_result_edges does; never taken from the file, so incremental loads keep the counts right.
// Relationships no Result supports any more are deleted; only changed counts are written.
CALL () {
  MATCH (a:Entity)-[d:EVALUATED_ON]->(b:Entity)
  WHERE NOT EXISTS { (a)<-[:ACHIEVED_BY]-(:Result)-[:ON_DATASET]->(b) }
  DELETE d
}
MATCH (a:Entity)<-[:ACHIEVED_BY]-(r:Result)-[:ON_DATASET]->(b:Entity)
WITH a, b, count(r) AS n
MERGE (a)-[d:EVALUATED_ON]->(b)
WITH d, n
WHERE d.count IS NULL OR d.count <> n
SET d.count = n
