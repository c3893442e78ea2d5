// Title: Most-used methods
// Answers: Which methods do other methods build on most often (incoming USES, counted in papers)?
// Param: $limit = 20 -- rows to return
// Param: $min_confidence = 0.0 -- leave out relations whose best evidence has a lower confidence (0-1)
MATCH (user:Method)-[r:USES]->(m:Method)
WHERE r.confidence >= $min_confidence
RETURN m.name AS method, sum(r.support) AS uses, count(DISTINCT user) AS users
ORDER BY uses DESC, users DESC, method
LIMIT $limit
