// Title: Low-support entities (curation)
// Answers: Which entities rest on few papers and low extraction confidence, so deserve a look?
// Param: $max_papers = 1 -- entities seen in at most this many papers
// Param: $type = "" -- Method, Task, Dataset or Metric; empty for all
// Param: $limit = 50 -- rows to return
MATCH (p:Paper)-[r:MENTIONS]->(e:Method|Task|Dataset|Metric)
WHERE e.support <= $max_papers AND ($type = '' OR e.type = $type)
RETURN e.type AS type, e.name AS name, e.support AS papers, max(r.confidence) AS confidence
ORDER BY confidence, type, name
LIMIT $limit
