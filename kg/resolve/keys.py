"""Deterministic entity keys, as resolution gives them (defined in :mod:`kg.names`)."""

from kg.names import entity_key, key_name, key_type, normalise_name, slug

__all__ = ["normalise_name", "key_name", "entity_key", "key_type", "slug"]
