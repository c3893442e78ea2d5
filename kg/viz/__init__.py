"""``kg viz``: one self-contained HTML page that draws a kg graph (Cytoscape.js, inlined)."""

from kg.viz.html import LABELLED, paper_label, viz_data, write_html

__all__ = ["LABELLED", "paper_label", "viz_data", "write_html"]
