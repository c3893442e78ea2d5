// Title: Methods evaluated on a dataset
// Answers: Which methods were evaluated on a dataset or benchmark, and in how many papers?
// Param: $dataset e.g. "ImageNet" -- a Dataset name, alias or key
// Param: $min_confidence = 0.0 -- leave out relations whose best evidence has a lower confidence (0-1)
MATCH (m:Method)-[r:EVALUATED_ON]->(d:Dataset)
WHERE (d.key = $dataset OR lower(d.name) = lower($dataset) OR $dataset IN d.aliases)
  AND r.confidence >= $min_confidence
RETURN m.name AS method, d.name AS dataset, r.support AS papers
ORDER BY papers DESC, method
