// Title: Shortest path between two entities
// Answers: How are two entities connected (the names and relationship types along the shortest path, either direction, at most 6 hops)?
// Param: $from e.g. "Transformer" -- a name, alias or key of any entity
// Param: $to e.g. "ImageNet" -- a name, alias or key of any entity
// This is the LadybugDB form; path-between.neo4j.cypher is the Neo4j one.
MATCH (a:Method|Task|Dataset|Metric), (b:Method|Task|Dataset|Metric)
WHERE (a.key = $from OR lower(a.name) = lower($from) OR $from IN a.aliases)
  AND (b.key = $to OR lower(b.name) = lower($to) OR $to IN b.aliases)
  AND a.key <> b.key
MATCH path = (a)-[* ALL SHORTEST 1..6]-(b)
WITH a.name AS source, b.name AS target, length(path) AS hops,
     list_transform(nodes(path), n -> coalesce(n.name, n.title, n.paper_id, n.key)) AS names,
     list_transform(rels(path), r -> label(r)) AS relationships
// of equally short paths, the first by the names along it (the same one on Neo4j)
WITH source, target, hops, names, relationships,
     list_reduce(names, (x, y) -> concat(x, '|', y)) AS along
ORDER BY hops, source, target, along
LIMIT 1
RETURN source, target, hops, names, relationships
