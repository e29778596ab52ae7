"""Results: the numbers each abstract reports, as value + kind + four slots (metric, dataset,
method, task) bound to the paper's entities, with the evidence sentence.

``grammar`` is the number grammar (every number as written, parsed into value and unit);
``cues`` the features and slot rules over one sentence; ``extract`` puts them together per paper
(the learned scorer in ``data/results_model.json`` decides which numbers are results and of
which kind). Runs after resolution, on each paper's canonical entities.

May import ``read``, ``nlp`` and ``resolve``; ``run`` imports it, and so may ``graph`` and ``queries``.
"""
