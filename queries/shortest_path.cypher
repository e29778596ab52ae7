// The shortest path between two papers through shared entities (paper - entity - paper ...,
// over PROPOSES/USES/MENTIONS in either direction; RELATED_TO is not used). Among several
// shortest paths, the one whose list of node ids (paper ids and entity keys) sorts first.
// One row per node; kind = Paper or the entity type. Empty when there is no path.
// param: from_paper paper -- the first paper id
// param: to_paper paper -- the last paper id
// returns: step, kind, id, name
MATCH (a:Paper {id: $from_paper}), (b:Paper {id: $to_paper})
WHERE a <> b
MATCH path = allShortestPaths((a)-[:PROPOSES|USES|MENTIONS*]-(b))
WITH path, [n IN nodes(path) | coalesce(n.id, n.key)] AS ids
ORDER BY ids
LIMIT 1
UNWIND range(0, size(ids) - 1) AS step
WITH step, nodes(path)[step] AS n
RETURN step, CASE WHEN n:Paper THEN 'Paper' ELSE n.type END AS kind,
       coalesce(n.id, n.key) AS id, coalesce(n.label, n.name) AS name
ORDER BY step
UNION ALL
MATCH (a:Paper {id: $from_paper})
WHERE $from_paper = $to_paper
RETURN 0 AS step, 'Paper' AS kind, a.id AS id, a.label AS name
