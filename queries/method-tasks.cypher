// Title: Tasks a method is applied to
// Answers: To which tasks is a method applied, and in how many papers?
// Param: $method e.g. "Transformer" -- a Method name, alias or key
// Param: $min_confidence = 0.0 -- leave out relations whose best evidence has a lower confidence (0-1)
MATCH (m:Method)-[r:APPLIED_TO]->(t:Task)
WHERE (m.key = $method OR lower(m.name) = lower($method) OR $method IN m.aliases)
  AND r.confidence >= $min_confidence
RETURN t.name AS task, r.support AS papers
ORDER BY papers DESC, task
