// Title: A paper's graph (for drawing)
// Answers: What does a paper propose and mention, as nodes and relationships to draw in the Browser?
// Param: $paper e.g. "2401.00001" -- a paper id as in extractions.jsonl
MATCH (p:Paper)-[r:PROPOSES|MENTIONS]->(e:Method|Task|Dataset|Metric)
WHERE p.paper_id = $paper
RETURN p, r, e
ORDER BY e.key, r.mentions
