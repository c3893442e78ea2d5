"""Helpers every stage may use and none owns: lazy package names, DuckDB and Parquet
tables, files written whole."""
