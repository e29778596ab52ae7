"""paperkg: machine-learning paper abstracts in, a research knowledge graph out.

>>> import paperkg
>>> kg = paperkg.build(["examples/abstracts.txt"])        # doctest: +SKIP

The API function is ``extract_entities`` (not ``extract``) so that it does not shadow the
``paperkg.extract`` stage package.
"""

from paperkg.api import ExtractResult, KnowledgeGraph, add, build, evaluate, extract_entities, load, remove
from paperkg.errors import PaperKGError

__version__ = "0.1.0"
__all__ = ["ExtractResult", "KnowledgeGraph", "PaperKGError", "add", "build", "evaluate", "extract_entities", "load", "remove",
           "__version__"]
