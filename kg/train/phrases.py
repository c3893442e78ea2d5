"""How often the annotators made each phrase an entity, learned from the gold papers
(scripts/learn_phrases.py writes the table)."""

from __future__ import annotations

from collections import Counter, defaultdict

from kg.nlp.entities.classify import beside_number
from kg.nlp.entities.vocabulary import PHRASE_TYPES, number_form, phrase_patterns
from kg.nlp.text import clean_text
from kg.resolve.keys import normalise_name

MIN_SEEN = 3


def paper_phrases(nlp, gold: list[dict], texts: dict[str, str]) -> list[dict[str, str | None]]:
    """Return, for each gold paper (in order; empty when its text is missing), each form
    the rules propose in it with the type its annotation gives the form, or None."""
    recognizer = nlp.get_pipe("kg_entities")
    known = [g for g in gold if g["id"] in texts]
    by_id: dict[str, dict[str, str | None]] = {}
    docs = nlp.pipe((clean_text(texts[g["id"]]) for g in known), batch_size=64)
    for g, doc in zip(known, docs, strict=True):
        labels: dict[str, str] = {}
        for ent in g["entities"]:
            for form in [ent["name"], *ent.get("aliases", [])]:
                labels.setdefault(normalise_name(form), ent["type"])
        spans = [span for span, _, _ in recognizer.featurised_spans(doc)]
        forms = {normalise_name(s.text): labels.get(normalise_name(s.text)) for s in spans}
        for span in spans:  # patterns ("*-based" for "LLM-based"), forms beside numbers
            label = labels.get(normalise_name(span.text))
            for pattern in phrase_patterns(span):
                forms[pattern] = forms.get(pattern) or label
            if beside_number(span):
                number = number_form(normalise_name(span.text))
                forms[number] = forms.get(number) or label
        by_id[g["id"]] = forms
    return [by_id.get(g["id"], {}) for g in gold]


def phrase_rows(papers: list[dict[str, str | None]], min_seen: int = MIN_SEEN) -> dict:
    """Return ``{form: (seen, {type: taken})}`` over ``papers`` (as :func:`paper_phrases`
    gives them) for the forms seen in ``min_seen`` papers or more."""
    seen: Counter = Counter()
    taken: dict[str, Counter] = defaultdict(Counter)
    for forms in papers:
        for form, label in forms.items():
            seen[form] += 1
            if label:
                taken[form][label] += 1
    return {
        form: (n, {t: taken[form][t] for t in PHRASE_TYPES})
        for form, n in seen.items()
        if n >= min_seen and form
    }
