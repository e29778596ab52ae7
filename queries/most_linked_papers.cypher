// The most connected papers: papers with the most RELATED_TO links (either direction);
// ties by paper id.
// param: k int = 10 -- rows to return
// returns: paper_id, label, links
MATCH (p:Paper)
RETURN p.id AS paper_id, p.label AS label, COUNT { (p)-[:RELATED_TO]-(:Paper) } AS links
ORDER BY links DESC, paper_id
LIMIT $k
