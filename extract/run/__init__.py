"""Running extraction over a corpus: ``corpus`` (extract what the store lacks, then resolve:
``extract_papers``, ``extract_corpus``, ``extracted``), the engines (``workers``: a local
process pool; ``dask_engine``: a Dask cluster) and the extraction store (``store``).

May import ``read``, ``nlp``, ``resolve`` and ``results``.
"""
