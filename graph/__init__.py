"""Graph stage: NetworkX building, paper-paper linking, analytics, exports and HTML.

The knowledge graph is one ``networkx.DiGraph``; every function here takes such a graph and
returns a new graph or an iterator. Its schema (the contract for exports, HTML and Neo4j; a
saved graph is checked against it, types included, by ``paperkg.graph.schema`` when read):

Nodes
  ``"paper:<paper_id>"``   kind="Paper", paper_id, label, title (str | None), abstract, venue,
                           year (int | None), url, authors (list[str]), keywords (list[str]),
                           aliases (list[str]: explicit ids of later input records with the same
                           abstract, which the reader folded into this paper), source, line,
                           community (int: Louvain over the topic graph, seed 0, numbered
                           by size from 0; -1 without links; ``paperkg.graph.communities``)
  ``"entity:<key>"``       kind="Entity", type (one of ``paperkg.types.ENTITY_TYPES``), key, name,
                           aliases (sorted list[str]), alias_keys (sorted list of the normalized
                           keys that resolve to it: its key, aliases, acronyms), pwc_id (Papers
                           with Code method slug or None), codesota_id (CodeSOTA id, e.g.
                           "datasets/42", or None), area (str or None), record_url (URL of the
                           archived PwC / CodeSOTA record or None), paper_count (int)
  ``"result:<paper_id>:<i>"`` kind="Result", paper_id, index (i: its place among the paper's
                           results, text order), value (the text as written), start, end
                           (abstract offsets), number (float), upper (float | None: a range's
                           high end), unit ("%" | "x" | "points" | "absolute"), result_kind
                           ("score" | "gain"), evidence (the sentence), direction ("higher" |
                           "lower" | None: which way its metric is better, from the metric's name)

Edges
  paper -> entity          kind="HAS", role ("proposed" | "used" | "mentioned"), count (int: the
                           number of distinct occurrences, i.e. of mentions),
                           evidence (the evidence sentence), evidence_offset (its start in the
                           abstract), mentions (list of [start, end, text], abstract offsets; no
                           span twice), confidence (float 0-1: the estimated probability that the
                           entity is right in this paper; None in a rules-only build)
  paper -> paper           kind="RELATED_TO", link_kind ("both": similar text and shared
                           specific entities | "text": similar text alone | "entities": shared
                           entities of papers without text; graphs of older builds: missing,
                           read as "entities"), weight (float: the abstracts' TF-IDF cosine, for
                           "entities" the entity cosine), shared (list of entity keys, the
                           strongest contribution first), evidence (the same entities as
                           ``{"key", "name", "type", "papers": int, "contribution": float}``),
                           terms (the shared words weighing most in the text cosine), reason (one
                           line: ``shared: SAC (method, 9 papers); similar text: mujoco, ...``);
                           stored once, from the smaller node id to the larger
  paper -> result          kind="REPORTS"
  result -> entity         kind="ON_DATASET" | "MEASURED_BY" | "ACHIEVED_BY" | "FOR_TASK": the
                           result's dataset, metric, method and task slot (each at most once)
  entity -> entity         kind="EVALUATED_ON" (Method -> Dataset/Benchmark), "ADDRESSES"
                           (Method -> Task), "MEASURED_BY" (Task -> Metric): derived from the
                           results that hold both, count (int: how many)
"""
