// Title: Most-proposed methods
// Answers: Which methods do the most papers propose (as their own contribution)?
// Param: $limit = 20 -- rows to return
MATCH (p:Paper)-[:PROPOSES]->(m:Method)
RETURN m.name AS method, count(DISTINCT p) AS papers, m.support AS mentioned_in
ORDER BY papers DESC, mentioned_in DESC, method
LIMIT $limit
