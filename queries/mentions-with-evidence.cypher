// Title: Papers that mention X, with evidence
// Answers: Which papers mention an entity, where (sentence and character offsets, as JSON), and how often?
// Param: $entity e.g. "ImageNet" -- a name, alias or key of any entity
MATCH (p:Paper)-[r:MENTIONS]->(x:Method|Task|Dataset|Metric)
WHERE x.key = $entity OR lower(x.name) = lower($entity) OR $entity IN x.aliases
RETURN p.paper_id AS paper, p.title AS title, r.mentions AS mentions, r.evidence AS evidence
ORDER BY mentions DESC, paper
