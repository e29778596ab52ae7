// Papers that use (or propose, or mention) a given entity, e.g. a dataset or benchmark,
// optionally with one role only; by paper id.
// param: entity entity -- the entity key, e.g. mujoco (names are normalized: "MuJoCo" -> mujoco)
// param: role enum(proposed|used|mentioned) = null -- only papers with this role (any role when omitted)
// returns: paper_id, label, role, count
MATCH (e:Entity {key: $entity})<-[r:PROPOSES|USES|MENTIONS]-(p:Paper)
WITH p, r, CASE type(r) WHEN 'PROPOSES' THEN 'proposed' WHEN 'USES' THEN 'used' ELSE 'mentioned' END AS role
WHERE $role IS NULL OR role = $role
RETURN p.id AS paper_id, p.label AS label, role, r.count AS count
ORDER BY paper_id
