"""The canonical entities table: one row per key, with the name most papers use, every
surface form as an alias and the counts a ranking needs."""

from __future__ import annotations

from pathlib import Path


def write_entities(con, table: str, entities_path: str | Path) -> None:
    """Write the canonical entities of DuckDB relation ``table`` (local entities with
    their canonical ``key`` column) to ``entities_path`` (Parquet, sorted by key), each named
    as relation ``kg_renames`` (key, to) says where it has a row. Needs the ``kg_acronym``
    and ``kg_defines`` functions on ``con``."""
    path = Path(entities_path).as_posix().replace("'", "''")
    con.execute(
        "COPY ("
        # every surface form of each entity, and whether a paper gave it as the long form
        # that defines an acronym, spelling the acronym out
        "WITH forms AS ("
        "SELECT key, paper, name AS form, kg_acronym(name) AS short, "
        "len(list_filter(aliases, lambda a: kg_acronym(a))) > 0 AND NOT kg_acronym(name) "
        f"AS long_form, kg_defines(name, aliases) AS spelled FROM {table} UNION ALL "
        "SELECT key, paper, unnest(aliases) AS form, kg_acronym(unnest(aliases)), false, "
        f"false FROM {table}), "
        "scored AS (SELECT key, form, any_value(short) AS short, "
        "count(DISTINCT paper) AS papers, "
        "count(DISTINCT paper) FILTER (WHERE NOT long_form) AS plain, "
        "count(DISTINCT paper) FILTER (WHERE spelled) AS spelled FROM forms "
        "GROUP BY key, form), "
        # the form most papers use; a long form only where two papers define it
        "chosen AS (SELECT key, arg_min(form, (plain = 0 AND spelled < 2, -papers, short, "
        "form)) AS name FROM scored GROUP BY key), "
        "best AS (SELECT key, coalesce(r.to, c.name) AS name FROM chosen c "
        "LEFT JOIN kg_renames r USING (key)), "
        "alias AS (SELECT key, list(DISTINCT form) AS aliases FROM scored GROUP BY key), "
        "counts AS (SELECT key, any_value(type) AS type, count(DISTINCT paper) AS support, "
        "sum(mentions) AS mention_count, "
        "count(DISTINCT paper) FILTER (WHERE proposed) AS proposed_count, "
        f"bool_or(benchmark) AS benchmark FROM {table} GROUP BY key) "
        "SELECT c.key, c.type, b.name, "
        "list_sort(list_filter(a.aliases, lambda x: x <> b.name)) AS aliases, "
        "c.support::BIGINT AS support, c.mention_count::BIGINT AS mention_count, "
        "c.proposed_count::BIGINT AS proposed_count, c.benchmark "
        "FROM counts c JOIN best b USING (key) JOIN alias a USING (key) ORDER BY c.key"
        f") TO '{path}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 10000)"
    )
