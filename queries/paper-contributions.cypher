// Title: What a paper proposes and uses
// Answers: What does a paper propose, and which methods do its proposals use according to that paper?
// Param: $paper e.g. "2401.00001" -- a paper id as in extractions.jsonl
MATCH (p:Paper)-[:PROPOSES]->(x:Method|Task|Dataset|Metric)
WHERE p.paper_id = $paper
OPTIONAL MATCH (x)-[r:USES]->(b:Method)
WHERE $paper IN r.papers
RETURN x.type AS type, x.name AS proposes, coalesce(b.name, '') AS uses
ORDER BY type, proposes, uses
