"""Reading: input files into :class:`~paperkg.types.Paper` records (``readers``: seed lists,
JSONL, CSV; ``sanitize``: text cleaning) and the annotated gold files (``gold``).

Imports nothing from the other rooms of ``extract``.
"""
