"""Corpus-level resolution: every paper's mentions into canonical entities (``canonical``:
one key, name and type per concept; ``acronyms``: definitions across the corpus; ``twins``: two
keys of one concept), the report of every merge (``report``), and the learned roles of each
paper entity (``roles``).

May import ``read`` and ``nlp``.
"""
