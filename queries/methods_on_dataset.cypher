// Methods evaluated on a dataset or benchmark: methods that occur in papers linked to it,
// by the number of such papers (proposed = how many of them propose the method); ties by key.
// Empty when the entity is not a Dataset or Benchmark.
// param: dataset entity -- the Dataset or Benchmark name, key, alias or acronym, e.g. CIFAR-10
// param: k int = 20 -- rows to return
// The entity is the one whose key is the value, else the most-mentioned one listing it in alias_keys.
// returns: key, name, papers, proposed
MATCH (candidate:Entity) WHERE candidate.key = $dataset OR $dataset IN candidate.alias_keys
WITH candidate AS d ORDER BY d.key = $dataset DESC, d.paper_count DESC, d.key LIMIT 1
WITH d WHERE d.type IN ['Dataset', 'Benchmark']
MATCH (d)<-[:PROPOSES|USES|MENTIONS]-(p:Paper)-[r:PROPOSES|USES|MENTIONS]->(m:Method)
WITH m, count(p) AS papers, sum(CASE type(r) WHEN 'PROPOSES' THEN 1 ELSE 0 END) AS proposed
RETURN m.key AS key, m.name AS name, papers, proposed
ORDER BY papers DESC, key
LIMIT $k
