// Title: Most-used methods
// Answers: Which methods do other methods build on most often (incoming USES, counted in papers)?
// Param: $limit = 20 -- rows to return
// Param: $min_confidence = 0.9 -- leave out relations less likely than this to be right (0-1; the default is the floor above which relations are right 9 times in 10, calibrated on held-out papers and judged edges; 0 shows all)
MATCH (user:Method)-[r:USES]->(m:Method)
WHERE r.confidence >= $min_confidence
RETURN m.name AS method, sum(r.support) AS uses, count(DISTINCT user) AS users
ORDER BY uses DESC, users DESC, method
LIMIT $limit
