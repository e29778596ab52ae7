"""The per-document NLP: one abstract in, its typed mention spans out (``records.DocMentions``).

``pipeline`` wires the spaCy component; the pure functions it calls are in ``rules``,
``abbreviations``, ``gazetteer`` (known lists), ``filtering``, ``markup``, ``normalize`` and
``budget``. May import ``read``. Every module here is per-document code: its source is part of
the extractor version that keys the store (:mod:`paperkg.extract.run.store`).
"""
