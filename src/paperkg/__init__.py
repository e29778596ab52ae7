"""paperkg: machine-learning paper abstracts in, a research knowledge graph out.

>>> import paperkg
>>> kg = paperkg.build(["examples/abstracts.txt"])        # doctest: +SKIP
"""

from paperkg.api import ExtractResult, KnowledgeGraph, build, evaluate, extract, load
from paperkg.errors import PaperKGError

__version__ = "0.1.0"
__all__ = ["ExtractResult", "KnowledgeGraph", "PaperKGError", "build", "evaluate", "extract", "load", "__version__"]
