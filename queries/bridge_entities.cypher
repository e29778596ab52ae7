// Entities that bridge otherwise distant groups of papers: the entities whose papers span
// the most Louvain communities. Communities are computed when the graph is built, over each
// linked paper's 10 nearest abstracts by text and the RELATED_TO links (networkx
// louvain_communities, seed 0), numbered by size from 0 (-1 for a
// paper without links), and loaded as Paper.community. communities = the number of
// distinct communities among the entity's papers; ties by papers (more first), then key.
// param: type enum(Method|Dataset|Benchmark|Task|Metric) = null -- only this entity type (all types when omitted)
// param: k int = 10 -- rows to return
// returns: key, name, type, communities, papers
MATCH (e:Entity)<-[:PROPOSES|USES|MENTIONS]-(p:Paper)
WHERE $type IS NULL OR e.type = $type
WITH e, count(DISTINCT p.community) AS communities, count(p) AS papers
RETURN e.key AS key, e.name AS name, e.type AS type, communities, papers
ORDER BY communities DESC, papers DESC, key
LIMIT $k
