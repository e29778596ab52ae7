"""Extraction stage: abstracts in, typed canonical entities per paper out.

Rooms by sub-stage, imports running one way (a room imports only the rooms before it)::

    read -> nlp -> resolve -> results -> run -> evaluate -> learn

``read/`` input files and gold files as typed records; ``nlp/`` the per-document spaCy stage
(rules, abbreviations, known lists, the filter, the trained NER); ``resolve/`` corpus-level
resolution (one key, name and type per concept, acronyms, the report) and the learned roles;
``results/`` the numbers each paper reports (after resolution: its slots are the paper's entities);
``run/`` the engines (in-process, worker pool, Dask) and the extraction store; ``evaluate/``
the span and paper-level scorers; ``learn/`` ``paperkg train`` (NER, vectors, role model).
``output.py`` is the mentions JSONL contract. Nothing at run time imports ``evaluate`` or
``learn``; ``learn`` uses ``evaluate``'s scorer to pick its checkpoint. Data the rooms load:
``data/`` (curated table, known lists) and ``model/`` (the trained NER and role model).
"""
