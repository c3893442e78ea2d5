"""The base of kg's pipeline components: spaCy's :class:`~spacy.pipeline.Pipe`, whose
``pipe`` routes a failing document to the handler ``nlp.set_error_handler`` installs."""

from __future__ import annotations

from spacy.pipeline import Pipe
from spacy.tokens import Doc

__all__ = ["KgComponent"]


class KgComponent(Pipe):
    """A stateless component that annotates a document in place with ``process(doc)``.

    spaCy calls it through ``Language.__call__`` and :meth:`Pipe.pipe`, which hand an
    exception to the pipeline's error handler (by default: raise it).
    """

    def process(self, doc: Doc) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __call__(self, doc: Doc) -> Doc:
        self.process(doc)
        return doc
