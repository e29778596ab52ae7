"""Extraction stage: readers, the spaCy pipeline, canonicalization, training and evaluation."""
