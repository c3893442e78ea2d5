// Title: Methods evaluated on a dataset
// Answers: Which methods were evaluated on a dataset or benchmark, and in how many papers?
// Param: $dataset e.g. "ImageNet" -- a Dataset name, alias or key
// Param: $min_confidence = 0.9 -- leave out relations less likely than this to be right (0-1; the default is the floor above which relations are right 9 times in 10, calibrated on held-out papers and judged edges; 0 shows all)
MATCH (m:Method)-[r:EVALUATED_ON]->(d:Dataset)
WHERE (d.key = $dataset OR lower(d.name) = lower($dataset) OR $dataset IN d.aliases)
  AND r.confidence >= $min_confidence
RETURN m.name AS method, d.name AS dataset, r.support AS papers
ORDER BY papers DESC, method
