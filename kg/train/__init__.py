"""Training kg's shipped models and tables: the library that the scripts in ``scripts/``
wrap (each script parses its arguments and calls these). Training reads the annotated
papers and the corpus in ``../shared`` beside a checkout of kg."""
