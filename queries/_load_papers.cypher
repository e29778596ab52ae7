// Loader: papers. row = {id, title, abstract, venue, year, url, label, authors, community}.
// A null value removes the property, so a re-load mirrors the file exactly.
UNWIND $rows AS row
MERGE (p:Paper {id: row.id})
SET p.title = row.title,
    p.abstract = row.abstract,
    p.venue = row.venue,
    p.year = row.year,
    p.url = row.url,
    p.label = row.label,
    p.authors = row.authors,
    p.community = row.community
