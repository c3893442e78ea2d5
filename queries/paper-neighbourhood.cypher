// Title: A paper's neighbourhood
// Answers: Which entities does a paper mention, and what other entities are they linked to?
// Param: $paper e.g. "2401.00001" -- a paper id as in extractions.jsonl
MATCH (p:Paper)-[:MENTIONS]->(e:Method|Task|Dataset|Metric)
WHERE p.paper_id = $paper
OPTIONAL MATCH (e)-[r:USES|APPLIED_TO|EVALUATED_ON|OUTPERFORMS|COMPARED_WITH|BENCHMARK_FOR|MEASURED_BY]-(n:Method|Task|Dataset|Metric)
RETURN e.type AS type, e.name AS entity, count(DISTINCT n) AS linked, sum(r.support) AS link_support
ORDER BY linked DESC, type, entity
