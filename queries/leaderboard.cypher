// Title: Leaderboard for a dataset and metric
// Answers: Which methods report the best scores for a metric on a dataset (its leaderboards, by the board rules of kg analyze, best first)?
// Param: $dataset e.g. "ImageNet" -- a Dataset name, alias or key
// Param: $metric = "" -- part of the board's name (its metric, "FID (reconstruction)" for a setting, "accuracy [no unit]" for a second unit) or of one of its metric's aliases, e.g. "accuracy"; empty for every board of the dataset
// Param: $show_hidden = false -- true to list, after each board's rows, the rows the board rules hide, with the reason in `hidden`
MATCH (p:Paper)-[:REPORTS]->(r:Result)-[:ON_DATASET]->(d:Dataset)
WHERE (d.key = $dataset OR lower(d.name) = lower($dataset) OR $dataset IN d.aliases)
  AND r.board_metric IS NOT NULL
  AND (r.board_shown OR $show_hidden)
OPTIONAL MATCH (r)-[:MEASURED_BY]->(k:Metric)
WITH p, r, d, k, lower($metric) AS wanted
WHERE wanted = '' OR lower(r.board_metric) CONTAINS wanted
   OR (k IS NOT NULL AND any(a IN k.aliases WHERE lower(a) CONTAINS wanted))
OPTIONAL MATCH (r)-[:FOR_METHOD]->(m:Method)
WITH r, d, p, m, CASE WHEN r.board_shown THEN 0 ELSE 1 END AS hidden_last,
     CASE WHEN r.board_direction = 'lower' THEN r.board_value ELSE 0 - r.board_value END AS rank_value
RETURN coalesce(m.name, '') AS method, r.board_value AS value, coalesce(r.board_unit, '') AS unit,
       r.board_metric AS metric, d.name AS dataset, p.paper_id AS paper,
       CASE WHEN r.own IS NULL THEN '' WHEN r.own THEN 'own' ELSE 'baseline' END AS reported_as,
       coalesce(r.board_note, '') AS note, coalesce(r.condition, '') AS condition,
       coalesce(r.board_hidden, '') AS hidden
ORDER BY metric, hidden_last, rank_value, method, paper, condition, note
