// The USING INDEX SEEK hint pins the plan to a seek of the paper: on a freshly emptied database
// the planner, misled by stale statistics, otherwise may scan the whole index for every row.
// Loader: delete RELATED_TO links between two papers of this file that the file no longer
// links (links to papers outside the file, from earlier loads, are kept).
// row = {id, linked}; $paper_ids = every paper id in the file.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})-[r:RELATED_TO]-(q:Paper)
USING INDEX SEEK p:Paper(id)
WHERE NOT q.id IN row.linked AND q.id IN $paper_ids
DELETE r
