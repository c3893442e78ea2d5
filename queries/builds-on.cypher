// Title: What builds on X
// Answers: Which methods use a method (USES, followed in reverse)?
// Param: $method e.g. "Transformer" -- a Method name, alias or key
// Param: $min_confidence = 0.9 -- leave out relations less likely than this to be right (0-1; the default is the floor above which relations are right 9 times in 10, calibrated on held-out papers and judged edges; 0 shows all)
MATCH (m:Method)-[r:USES]->(x:Method)
WHERE (x.key = $method OR lower(x.name) = lower($method) OR $method IN x.aliases)
  AND r.confidence >= $min_confidence
RETURN m.name AS method, r.support AS papers, m.proposed_count AS proposed_by
ORDER BY papers DESC, method
