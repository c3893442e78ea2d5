// Title: Shortest path between two entities
// Answers: How are two entities connected (the names and relationship types along the shortest path, either direction, at most 6 hops)?
// Param: $from e.g. "Transformer" -- a name, alias or key of any entity
// Param: $to e.g. "ImageNet" -- a name, alias or key of any entity
// This is the LadybugDB form; path-between.neo4j.cypher is the Neo4j one.
MATCH (a:Method|Task|Dataset|Metric), (b:Method|Task|Dataset|Metric)
WHERE (a.key = $from OR lower(a.name) = lower($from) OR $from IN a.aliases)
  AND (b.key = $to OR lower(b.name) = lower($to) OR $to IN b.aliases)
  AND a.key <> b.key
MATCH path = (a)-[* SHORTEST 1..6]-(b)
RETURN a.name AS source, b.name AS target, length(path) AS hops,
       list_transform(nodes(path), n -> coalesce(n.name, n.title, n.paper_id, n.key)) AS names,
       list_transform(rels(path), r -> label(r)) AS relationships
ORDER BY hops, source, target
LIMIT 1
