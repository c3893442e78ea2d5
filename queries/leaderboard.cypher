// Title: Leaderboard for a dataset and metric
// Answers: Which methods report the best scores for a metric on a dataset (Result nodes, best first)?
// Param: $dataset e.g. "ImageNet" -- a Dataset name, alias or key
// Param: $metric = "" -- part of the metric name, e.g. "accuracy"; empty for every metric
// Param: $lower_is_better = false -- true for errors, losses and other lower-is-better metrics; kg query sets it from the way papers move $metric (learned) unless given
MATCH (p:Paper)-[:REPORTS]->(r:Result)-[:ON_DATASET]->(d:Dataset)
WHERE (d.key = $dataset OR lower(d.name) = lower($dataset) OR $dataset IN d.aliases)
  AND r.delta = false
  AND ($metric = '' OR lower(coalesce(r.metric_name, '')) CONTAINS lower($metric))
OPTIONAL MATCH (r)-[:FOR_METHOD]->(m:Method)
WITH r, d, p, m, CASE WHEN $lower_is_better THEN r.value ELSE 0 - r.value END AS rank_value
RETURN coalesce(m.name, '') AS method, r.value AS value, r.unit AS unit,
       r.metric_name AS metric, d.name AS dataset, p.paper_id AS paper,
       CASE WHEN r.own IS NULL THEN '' WHEN r.own THEN 'own' ELSE 'baseline' END AS reported_as
ORDER BY rank_value, method, paper
