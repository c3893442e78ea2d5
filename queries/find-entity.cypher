// Title: Find an entity by part of its name
// Answers: Which entities have a name or alias containing some text, most supported first?
// Param: $text e.g. "attention" -- text to look for (case-insensitive) in names
// Param: $limit = 25 -- rows to return
MATCH (e:Method|Task|Dataset|Metric)
WHERE lower(e.name) CONTAINS lower($text) OR $text IN e.aliases
RETURN e.type AS type, e.name AS name, e.key AS key, e.support AS papers
ORDER BY papers DESC, type, name
LIMIT $limit
