// Title: Shortest path between two entities
// Answers: How are two entities connected (the names and relationship types along the shortest path, either direction, at most 6 hops)?
// Param: $from e.g. "Transformer" -- a name, alias or key of any entity
// Param: $to e.g. "ImageNet" -- a name, alias or key of any entity
// The Neo4j form of path-between.cypher.
MATCH (a:Method|Task|Dataset|Metric), (b:Method|Task|Dataset|Metric)
WHERE (a.key = $from OR lower(a.name) = lower($from) OR $from IN a.aliases)
  AND (b.key = $to OR lower(b.name) = lower($to) OR $to IN b.aliases)
  AND a.key <> b.key
MATCH path = allShortestPaths((a)-[*1..6]-(b))
WITH a.name AS source, b.name AS target, length(path) AS hops,
     [n IN nodes(path) | coalesce(n.name, n.title, n.paper_id, n.key)] AS names,
     [r IN relationships(path) | type(r)] AS relationships
// of equally short paths, the first by the names along it (the same one as LadybugDB)
WITH source, target, hops, names, relationships,
     reduce(s = '', x IN names | s + '|' + x) AS along
ORDER BY hops, source, target, along
LIMIT 1
RETURN source, target, hops, names, relationships
