// Loader: delete RELATED_TO links between two papers of this file that the file no longer
// links (links to papers outside the file, from earlier loads, are kept).
// row = {id, linked}; $paper_ids = every paper id in the file.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})-[r:RELATED_TO]-(q:Paper)
WHERE q.id IN $paper_ids AND NOT q.id IN row.linked
DELETE r
