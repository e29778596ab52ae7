// Loader: Result -> entity relationships of the dataset slot. row = {id, key}: the Result's id and
// the entity's key. A slot an older extraction filled differently was deleted by
// _load_prune_result_slots. The index hints keep the plan a seek even when the statistics are stale.
UNWIND $rows AS row
MATCH (r:Result {id: row.id})
USING INDEX SEEK r:Result(id)
MATCH (e:Entity {key: row.key})
USING INDEX SEEK e:Entity(key)
MERGE (r)-[:ON_DATASET]->(e)
