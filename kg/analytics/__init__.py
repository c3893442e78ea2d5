"""Analytics over a kg graph (a networkx MultiDiGraph as ``kg.load_graph`` returns it).

Every function takes the graph and returns plain data (lists of dataclasses or dicts);
none of them changes the graph.
"""

from kg.analytics.communities import Community, communities
from kg.analytics.cooccurrence import cooccurrence_graph, top_cooccurring
from kg.analytics.curation import (
    Duplicate,
    likely_duplicates,
    papers_without_entities,
    single_paper_entities,
)
from kg.analytics.leaderboards import (
    Board,
    LeaderboardRow,
    boards_of,
    leaderboards,
    learn_directions,
    metric_direction,
)
from kg.analytics.lineage import Outperformance, method_lineage, outperforms_summary
from kg.analytics.ranking import RankedEntity, degree_histogram, entities, top_entities
from kg.analytics.trends import Trend, trends

__all__ = [
    "Board",
    "Community",
    "Duplicate",
    "LeaderboardRow",
    "Outperformance",
    "RankedEntity",
    "Trend",
    "boards_of",
    "communities",
    "cooccurrence_graph",
    "degree_histogram",
    "entities",
    "leaderboards",
    "learn_directions",
    "likely_duplicates",
    "method_lineage",
    "metric_direction",
    "outperforms_summary",
    "papers_without_entities",
    "single_paper_entities",
    "top_cooccurring",
    "top_entities",
    "trends",
]
