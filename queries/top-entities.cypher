// Title: Top entities of a type
// Answers: Which methods, tasks, datasets or metrics appear in the most papers?
// Param: $type = "Method" -- Method, Task, Dataset or Metric
// Param: $limit = 20 -- rows to return
MATCH (e:Method|Task|Dataset|Metric)
WHERE e.type = $type
RETURN e.name AS name, e.support AS papers, e.mention_count AS mentions,
       e.proposed_count AS proposed_by
ORDER BY papers DESC, mentions DESC, name
LIMIT $limit
