// Title: Likely duplicate entities (curation)
// Answers: Which pairs of same-type entities share a name or alias, or differ only in case and hyphens?
// Param: $limit = 50 -- rows to return
MATCH (p:Paper)-[:MENTIONS]->(a:Method|Task|Dataset|Metric)
MATCH (p)-[:MENTIONS]->(b:Method|Task|Dataset|Metric)
WHERE a.type = b.type AND a.key < b.key
  AND (a.name IN b.aliases OR b.name IN a.aliases
       OR replace(lower(a.name), '-', ' ') = replace(lower(b.name), '-', ' '))
RETURN a.type AS type, a.name AS name_a, b.name AS name_b, count(DISTINCT p) AS shared_papers
ORDER BY shared_papers DESC, type, name_a, name_b
LIMIT $limit
