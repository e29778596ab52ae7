"""Training what the pipeline loads (``paperkg train``): ``train`` (the NER, with its
``ner.cfg``), ``examples`` (gold files as spaCy examples), ``vectors`` (in-domain word vectors)
and ``roles`` (the role model). May import every other room (``evaluate`` scores checkpoints);
nothing at run time imports it.
"""
