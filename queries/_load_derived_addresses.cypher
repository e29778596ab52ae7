// Loader, last steps: the derived Method -[:ADDRESSES {count}]-> Task relationships, recomputed in Neo4j
// from every Result that holds both ends (its :ACHIEVED_BY and its :FOR_TASK entity), as the graph's
// add_result_edges does; never taken from the file, so incremental loads keep the counts right.
// Relationships no Result supports any more are deleted; only changed counts are written.
CALL () {
  MATCH (a:Entity)-[d:ADDRESSES]->(b:Entity)
  WHERE NOT EXISTS { (a)<-[:ACHIEVED_BY]-(:Result)-[:FOR_TASK]->(b) }
  DELETE d
}
MATCH (a:Entity)<-[:ACHIEVED_BY]-(r:Result)-[:FOR_TASK]->(b:Entity)
WITH a, b, count(r) AS n
MERGE (a)-[d:ADDRESSES]->(b)
WITH d, n
WHERE d.count IS NULL OR d.count <> n
SET d.count = n
