"""Learn how often annotators make each phrase an entity (kg/nlp/data/phrase_stats.tsv).

Usage: python scripts/learn_phrases.py [--gold FILE ...] [--abstracts FILE] [--out FILE]

For every candidate span the entity rules propose in the annotated training abstracts
(gold/train.jsonl and gold/silver/train.jsonl, 1,340 abstracts; dev and silver/test stay
for measuring), the phrase's normalised form counts once per abstract it appears in, and
once per abstract whose annotation makes it an entity, by type. The entity recognizer
reads the table as evidence across papers: a phrase the annotators almost never take
("state-of-the-art", "LLM-based") is no entity, whatever rule found it; one they take
with one type nearly always gets that type. Patterns count too: every phrase ending in
one hyphenated word (``*-based``), and each phrase's mentions beside a reported number
(``score #n``: a measure taken only where a number is reported keeps a record of its
own there). Phrases seen in fewer than MIN_SEEN
abstracts are left out. The file is derived from the annotations (see
../shared/gold/README.md for their licence); nothing in it is written by hand.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from train_entities import TRAINING, add_training_inputs, load_abstracts, read_gold

from kg.nlp.entity_classify import beside_number
from kg.nlp.pipeline import load_pipeline
from kg.nlp.text import clean_text
from kg.nlp.vocabulary import PHRASE_TYPES, number_form, phrase_patterns, write_phrase_stats
from kg.resolve.keys import normalise_name

ROOT = Path(__file__).resolve().parents[1]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_training_inputs(parser)
    parser.add_argument("--out", type=Path, default=ROOT / "kg/nlp/data/phrase_stats.tsv")
    parser.add_argument("--min-seen", type=int, default=MIN_SEEN)
    args = parser.parse_args()
    gold = read_gold(args.gold or TRAINING)
    texts = load_abstracts(args.abstracts, {g["id"] for g in gold})
    nlp = load_pipeline()
    with nlp.select_pipes(disable=["kg_proposals", "kg_results", "kg_relations"]):
        rows = phrase_rows(paper_phrases(nlp, gold, texts), args.min_seen)
    write_phrase_stats(rows, args.out)
    gated = sum(1 for n, by in rows.values() if sum(by.values()) == 0)
    print(f"{len(rows)} phrases seen in >= {args.min_seen} of {len(texts)} abstracts "
          f"({gated} never annotated) -> {args.out}")  # fmt: skip


if __name__ == "__main__":
    main()
