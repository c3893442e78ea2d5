"""The LadybugDB exporter's options, as a build and ``kg update`` take them (the CLI's
``--ladybug-*`` flags): light to import, apart from the exporter itself."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LadybugOptions"]


@dataclass(frozen=True)
class LadybugOptions:
    """The LadybugDB store's limits; each left None takes the exporter's default
    (:func:`kg.exporters.ladybug.write_database`)."""

    memory_mb: int | None = None
    """The write buffer pool in MB, as it starts (0: unbounded)."""
    memory_max_mb: int | None = None
    """What that pool may grow to (default a quarter of the machine's memory)."""
    text_max_papers: int | None = None
    """A store of more papers leaves their abstracts out."""
    evidence_max_papers: int | None = None
    """A store of more papers leaves its relationships' evidence out (default: never)."""
    forward_only_above_mb: int | None = None
    """A relationship table heavier than this is stored forward only (default: an eighth
    of the pool)."""

    def write_args(self) -> dict[str, int | None]:
        """The keyword arguments of :func:`~kg.exporters.ladybug.write_database`, sizes
        in bytes."""

        def in_bytes(mb: int | None) -> int | None:
            return None if mb is None else mb * 2**20

        return {
            "pool": in_bytes(self.memory_mb),
            "pool_max": in_bytes(self.memory_max_mb),
            "forward_only_above": in_bytes(self.forward_only_above_mb),
            "text_max_papers": self.text_max_papers,
            "evidence_max_papers": self.evidence_max_papers,
        }
