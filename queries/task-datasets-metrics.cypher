// Title: Datasets and metrics used for a task
// Answers: Which benchmarks and metrics are used for a task, and in how many papers?
// Param: $task e.g. "image classification" -- a Task name, alias or key
// Param: $min_confidence = 0.9 -- leave out relations less likely than this to be right (0-1; the default is the floor above which relations are right 9 times in 10, calibrated on held-out papers and judged edges; 0 shows all)
// Both directions are matched forward (Dataset -> Task, Task -> Metric) so stores that keep
// big relationship tables forward only can answer.
MATCH (t:Task)
WHERE t.key = $task OR lower(t.name) = lower($task) OR $task IN t.aliases
MATCH (a:Dataset|Task)-[r:BENCHMARK_FOR|MEASURED_BY]->(b:Task|Metric)
WHERE ((a.type = 'Dataset' AND b.key = t.key) OR (a.key = t.key AND b.type = 'Metric'))
  AND r.confidence >= $min_confidence
WITH r, CASE WHEN a.key = t.key THEN b ELSE a END AS x
RETURN x.type AS kind, x.name AS name, r.support AS papers
ORDER BY kind, papers DESC, name
