// Papers that use (or propose, or mention) a given entity, e.g. a dataset or benchmark,
// optionally with one role only; by paper id.
// param: entity entity -- the entity's name, key, alias or acronym, e.g. MuJoCo or SAC (normalized: "MuJoCo" -> mujoco)
// param: role enum(proposed|used|mentioned) = null -- only papers with this role (any role when omitted)
// The entity is the one whose key is the value, else the most-mentioned one listing it in alias_keys.
// returns: paper_id, label, role, count
MATCH (candidate:Entity) WHERE candidate.key = $entity OR $entity IN candidate.alias_keys
WITH candidate AS e ORDER BY e.key = $entity DESC, e.paper_count DESC, e.key LIMIT 1
MATCH (e)<-[r:PROPOSES|USES|MENTIONS]-(p:Paper)
WITH p, r, CASE type(r) WHEN 'PROPOSES' THEN 'proposed' WHEN 'USES' THEN 'used' ELSE 'mentioned' END AS role
WHERE $role IS NULL OR role = $role
RETURN p.id AS paper_id, p.label AS label, role, r.count AS count
ORDER BY paper_id
