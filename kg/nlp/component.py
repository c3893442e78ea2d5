"""A small base for kg's pipeline components: spaCy-style error handling around ``process``."""

from __future__ import annotations

from collections.abc import Callable

from spacy.tokens import Doc

__all__ = ["KgComponent"]


def _raise_error(name: str, component: object, docs: list[Doc], exc: Exception) -> None:
    raise exc


class KgComponent:
    """Wraps ``process(doc)`` in the error handler that ``nlp.set_error_handler`` installs."""

    name: str = "kg_component"

    def process(self, doc: Doc) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __call__(self, doc: Doc) -> Doc:
        try:
            self.process(doc)
        except Exception as exc:  # noqa: BLE001 - routed to the configured handler
            self.get_error_handler()(self.name, self, [doc], exc)
        return doc

    def get_error_handler(self) -> Callable[..., None]:
        return getattr(self, "_error_handler", _raise_error)

    def set_error_handler(self, handler: Callable[..., None]) -> None:
        self._error_handler = handler
