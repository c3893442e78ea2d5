"""kg: turn machine-learning paper abstracts into a knowledge graph."""

__version__ = "0.1.0"
