// Title: What builds on X
// Answers: Which methods use a method (USES, followed in reverse)?
// Param: $method e.g. "Transformer" -- a Method name, alias or key
MATCH (m:Method)-[r:USES]->(x:Method)
WHERE x.key = $method OR lower(x.name) = lower($method) OR $method IN x.aliases
RETURN m.name AS method, r.support AS papers, m.proposed_count AS proposed_by
ORDER BY papers DESC, method
