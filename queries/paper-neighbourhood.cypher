// Title: A paper's neighbourhood
// Answers: Which entities does a paper mention, and what other entities are they linked to?
// Param: $paper e.g. "2401.00001" -- a paper id as in extractions.jsonl
// Links into e are matched from their source and joined on key, never walked backward from e:
// a big build's store keeps its relationship tables forward only.
MATCH (p:Paper)-[:MENTIONS]->(e:Method|Task|Dataset|Metric)
WHERE p.paper_id = $paper
OPTIONAL MATCH (e)-[r:USES|APPLIED_TO|EVALUATED_ON|OUTPERFORMS|COMPARED_WITH|BENCHMARK_FOR|MEASURED_BY]->(n:Method|Task|Dataset|Metric)
WITH e, collect(DISTINCT n.key) AS outs, sum(r.support) AS out_support
OPTIONAL MATCH (n:Method|Task|Dataset|Metric)-[r:USES|APPLIED_TO|EVALUATED_ON|OUTPERFORMS|COMPARED_WITH|BENCHMARK_FOR|MEASURED_BY]->(m:Method|Task|Dataset|Metric)
WHERE m.key = e.key
WITH e, outs, out_support, count(DISTINCT CASE WHEN n.key IN outs THEN NULL ELSE n.key END) AS new_ins, sum(r.support) AS in_support
RETURN e.type AS type, e.name AS entity, size(outs) + new_ins AS linked, coalesce(out_support, 0) + coalesce(in_support, 0) AS link_support
ORDER BY linked DESC, type, entity
