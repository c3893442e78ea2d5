// Title: Datasets and metrics used for a task
// Answers: Which benchmarks and metrics are used for a task, and in how many papers?
// Param: $task e.g. "image classification" -- a Task name, alias or key
// Param: $min_confidence = 0.0 -- leave out relations whose best evidence has a lower confidence (0-1)
MATCH (t:Task)-[r:BENCHMARK_FOR|MEASURED_BY]-(x:Dataset|Metric)
WHERE (t.key = $task OR lower(t.name) = lower($task) OR $task IN t.aliases)
  AND r.confidence >= $min_confidence
RETURN x.type AS kind, x.name AS name, r.support AS papers
ORDER BY kind, papers DESC, name
