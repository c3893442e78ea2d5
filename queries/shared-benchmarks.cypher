// Title: Benchmarks shared by two methods
// Answers: On which datasets were both of two methods evaluated?
// Param: $method_a e.g. "ResNet" -- a Method name, alias or key
// Param: $method_b e.g. "ViT" -- a Method name, alias or key
MATCH (a:Method)-[ra:EVALUATED_ON]->(d:Dataset)<-[rb:EVALUATED_ON]-(b:Method)
WHERE (a.key = $method_a OR lower(a.name) = lower($method_a) OR $method_a IN a.aliases)
  AND (b.key = $method_b OR lower(b.name) = lower($method_b) OR $method_b IN b.aliases)
  AND a.key <> b.key
RETURN d.name AS dataset, d.benchmark AS benchmark, ra.support AS papers_a, rb.support AS papers_b
ORDER BY dataset
