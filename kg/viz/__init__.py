"""``kg viz``: one self-contained HTML page that draws a kg graph (Cytoscape.js, inlined)."""

from kg.viz.html import viz_data, write_html

__all__ = ["viz_data", "write_html"]
