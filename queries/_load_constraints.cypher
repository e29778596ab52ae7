// Loader schema: uniqueness constraints on Paper.id, the Entity key per label and Result.id
// (each also creates the index MERGE uses), the key of the load lock (_load_lock.cypher) and an
// index on Entity.type for the per-type queries.
// One statement per line group, separated by semicolons; run one by one before any write.
CREATE CONSTRAINT paperkg_paper_id IF NOT EXISTS FOR (p:Paper) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT paperkg_entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE e.key IS UNIQUE;
CREATE CONSTRAINT paperkg_method_key IF NOT EXISTS FOR (e:Method) REQUIRE e.key IS UNIQUE;
CREATE CONSTRAINT paperkg_dataset_key IF NOT EXISTS FOR (e:Dataset) REQUIRE e.key IS UNIQUE;
CREATE CONSTRAINT paperkg_benchmark_key IF NOT EXISTS FOR (e:Benchmark) REQUIRE e.key IS UNIQUE;
CREATE CONSTRAINT paperkg_task_key IF NOT EXISTS FOR (e:Task) REQUIRE e.key IS UNIQUE;
CREATE CONSTRAINT paperkg_metric_key IF NOT EXISTS FOR (e:Metric) REQUIRE e.key IS UNIQUE;
CREATE CONSTRAINT paperkg_result_id IF NOT EXISTS FOR (r:Result) REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT paperkg_load_lock IF NOT EXISTS FOR (l:PaperKGLoadLock) REQUIRE l.id IS UNIQUE;
CREATE INDEX paperkg_entity_type IF NOT EXISTS FOR (e:Entity) ON (e.type);
