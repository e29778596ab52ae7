"""Scoring extraction against gold: ``spans`` (exact and overlap span P/R/F1 per type, the
SciERC / FTD / TDMSci convention) and ``papers`` (paperkg's paper-level measures).

May import ``read``, ``nlp``, ``resolve`` and ``run``; nothing at run time imports it.
"""
