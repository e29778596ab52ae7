"""Graph stage: NetworkX building, paper-paper linking, analytics, exports and HTML.

The knowledge graph is one ``networkx.DiGraph``; every function here takes such a graph and
returns a new graph or an iterator. Its schema (the contract for exports, HTML and Neo4j):

Nodes
  ``"paper:<paper_id>"``   kind="Paper", paper_id, label, title (str | None), abstract, venue,
                           year (int | None), url, authors (list[str]), keywords (list[str]),
                           aliases (list[str]: explicit ids of later input records with the same
                           abstract, which the reader folded into this paper), source, line
  ``"entity:<key>"``       kind="Entity", type (one of ``paperkg.types.ENTITY_TYPES``), key, name,
                           aliases (sorted list[str]), paper_count (int)

Edges
  paper -> entity          kind="HAS", role ("proposed" | "used" | "mentioned"), count (int),
                           evidence (the evidence sentence), evidence_offset (its start in the
                           abstract), mentions (list of [start, end, text], abstract offsets)
  paper -> paper           kind="RELATED_TO", weight (float), shared (list of entity keys, the
                           rarest first); stored once, from the smaller node id to the larger
"""
