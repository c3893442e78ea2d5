"""Resolution: paper-local mentions to canonical cross-paper entities with stable keys."""

from kg.resolve.keys import entity_key, normalise_name, slug
from kg.resolve.local import LocalEntity, local_entities
from kg.resolve.memory import Resolver
from kg.resolve.merges import Merge
from kg.resolve.records import paper_record, result_id
from kg.resolve.resolver import Entity, Resolution

__all__ = [
    "Entity",
    "LocalEntity",
    "Merge",
    "Resolution",
    "Resolver",
    "entity_key",
    "local_entities",
    "normalise_name",
    "paper_record",
    "result_id",
    "slug",
]
