// Title: Entities that co-occur with X
// Answers: Which entities are mentioned in the same papers as an entity, most shared papers first?
// Param: $entity e.g. "ImageNet" -- a name, alias or key of any entity
// Param: $limit = 25 -- rows to return
MATCH (p:Paper)-[:MENTIONS]->(x:Method|Task|Dataset|Metric)
WHERE x.key = $entity OR lower(x.name) = lower($entity) OR $entity IN x.aliases
MATCH (p)-[:MENTIONS]->(y:Method|Task|Dataset|Metric)
WHERE y.key <> x.key
RETURN y.type AS type, y.name AS name, count(DISTINCT p) AS shared_papers
ORDER BY shared_papers DESC, type, name
LIMIT $limit
