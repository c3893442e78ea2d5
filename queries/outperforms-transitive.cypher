// Title: Methods that outperform X, transitively
// Answers: Which methods beat a method directly or through a chain of OUTPERFORMS claims?
// Param: $method e.g. "ResNet" -- a Method name, alias or key
// Param: $max_hops = 4 -- the longest chain followed (upper bound 6)
MATCH path = (m:Method)-[:OUTPERFORMS*1..6]->(x:Method)
WHERE (x.key = $method OR lower(x.name) = lower($method) OR $method IN x.aliases)
  AND length(path) <= $max_hops AND m.key <> x.key
RETURN m.name AS method, min(length(path)) AS hops
ORDER BY hops, method
