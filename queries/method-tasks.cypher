// Title: Tasks a method is applied to
// Answers: To which tasks is a method applied, and in how many papers?
// Param: $method e.g. "Transformer" -- a Method name, alias or key
// Param: $min_confidence = 0.9 -- leave out relations less likely than this to be right (0-1; the default is the floor above which relations are right 9 times in 10, calibrated on held-out papers and judged edges; 0 shows all)
MATCH (m:Method)-[r:APPLIED_TO]->(t:Task)
WHERE (m.key = $method OR lower(m.name) = lower($method) OR $method IN m.aliases)
  AND r.confidence >= $min_confidence
RETURN t.name AS task, r.support AS papers
ORDER BY papers DESC, task
