// Title: Most-used methods
// Answers: Which methods do other methods build on most often (incoming USES, counted in papers)?
// Param: $limit = 20 -- rows to return
MATCH (user:Method)-[r:USES]->(m:Method)
RETURN m.name AS method, sum(r.support) AS uses, count(DISTINCT user) AS users
ORDER BY uses DESC, users DESC, method
LIMIT $limit
