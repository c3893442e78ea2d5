// Neo4j constraints and indexes for kg's graph model (kg/graph/model.py).
// `kg load neo4j` applies them before loading; every statement is idempotent.
// One uniqueness constraint per label key (MERGE relies on them), a range index
// on each entity name and on paper titles and years, and one full-text index
// over the names and aliases of all entities.

CREATE CONSTRAINT paper_key IF NOT EXISTS FOR (n:Paper) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT method_key IF NOT EXISTS FOR (n:Method) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT task_key IF NOT EXISTS FOR (n:Task) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT dataset_key IF NOT EXISTS FOR (n:Dataset) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT metric_key IF NOT EXISTS FOR (n:Metric) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT result_key IF NOT EXISTS FOR (n:Result) REQUIRE n.key IS UNIQUE;

CREATE INDEX paper_id IF NOT EXISTS FOR (n:Paper) ON (n.paper_id);
CREATE INDEX paper_year IF NOT EXISTS FOR (n:Paper) ON (n.year);
CREATE INDEX method_name IF NOT EXISTS FOR (n:Method) ON (n.name);
CREATE INDEX task_name IF NOT EXISTS FOR (n:Task) ON (n.name);
CREATE INDEX dataset_name IF NOT EXISTS FOR (n:Dataset) ON (n.name);
CREATE INDEX metric_name IF NOT EXISTS FOR (n:Metric) ON (n.name);
CREATE INDEX result_metric IF NOT EXISTS FOR (n:Result) ON (n.metric_name);

CREATE FULLTEXT INDEX entity_names IF NOT EXISTS
FOR (n:Method|Task|Dataset|Metric) ON EACH [n.name, n.aliases];
