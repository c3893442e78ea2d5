// Title: What builds on X
// Answers: Which methods use a method (USES, followed in reverse)?
// Param: $method e.g. "Transformer" -- a Method name, alias or key
// Param: $min_confidence = 0.0 -- leave out relations whose best evidence has a lower confidence (0-1)
MATCH (m:Method)-[r:USES]->(x:Method)
WHERE (x.key = $method OR lower(x.name) = lower($method) OR $method IN x.aliases)
  AND r.confidence >= $min_confidence
RETURN m.name AS method, r.support AS papers, m.proposed_count AS proposed_by
ORDER BY papers DESC, method
