// Loader: entities of type Metric. row = {key, name, aliases, alias_keys, pwc_id, codesota_id, area, record_url}.
// MERGE on the shared :Entity key (keys are unique across types); the type label is fixed
// here, and the other type labels are removed in case a re-extraction changed the type.
// paper_count is recomputed from the relationships at the end of every load.
UNWIND $rows AS row
MERGE (e:Entity {key: row.key})
SET e:Metric,
    e.type = 'Metric',
    e.name = row.name,
    e.aliases = row.aliases,
    e.alias_keys = row.alias_keys,
    e.pwc_id = row.pwc_id,
    e.codesota_id = row.codesota_id,
    e.area = row.area,
    e.record_url = row.record_url
REMOVE e:Method:Dataset:Benchmark:Task
