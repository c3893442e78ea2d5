"""What a paper proposes: "we propose X", "dubbed X", "called X", "our X"."""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.nlp.component import KgComponent
from kg.nlp.entities.phrases import TokenTable, content_tokens, phrase_type
from kg.nlp.entities.vocabulary import Lexicon
from kg.nlp.extensions import ENTITY_SPANS, doc_data, mention_key

__all__ = ["ProposalFinder", "is_named", "proposed_method"]

_PROPOSE_VERBS = {
    "propose",
    "introduce",
    "present",
    "develop",
    "design",
    "build",
    "construct",
    "create",
    "devise",
    "release",
    "curate",
    "contribute",
    "formulate",
    "establish",
    "offer",
    "put",
}
_NAMING_WORDS = {"dubbed", "called", "named", "termed", "coined", "denoted"}
_MODIFIER_SUFFIXES = {"based", "driven", "guided", "powered", "style", "like", "aware", "assisted"}


class ProposalFinder(KgComponent):
    """Mark the entities the paper itself introduces.

    Reads ``doc.spans["kg_entities"]`` and the parse; writes ``doc._.kg_proposed``
    (``[start_char, end_char, rule]``) and, for an unnamed proposal ("a two-stage
    framework"), adds a new mention named by the phrase to ``doc.spans["kg_entities"]``.
    """

    def __init__(self, nlp: Language, name: str, *, lexicon: Lexicon, window: int = 12) -> None:
        self.name = name
        self.lexicon = lexicon
        self.window = window

    def process(self, doc: Doc) -> None:
        mentions = list(doc.spans.get(ENTITY_SPANS, []))
        proposed = doc_data(doc, "kg_proposed")
        info = doc_data(doc, "kg_mention_info")
        marked: set[tuple[int, int]] = set()

        def mark(span: Span, rule: str) -> None:
            key = (span.start_char, span.end_char)
            if key not in marked:
                marked.add(key)
                proposed.append([span.start_char, span.end_char, f"{self.name}.{rule}"])

        for tok in doc:
            lemma = tok.lemma_.lower()
            if lemma in _PROPOSE_VERBS and _acts_as_verb(tok):
                hit = _defined_passive_subject(tok, mentions, info)
                if hit is not None:
                    mark(hit, "passive")
                elif _has_we_subject(tok) or _after_we(tok):
                    self._mark_object(doc, tok, mentions, mark, info)
            elif tok.lower_ in _NAMING_WORDS and tok.i + 1 < len(doc):
                hit = _first_mention_from(mentions, tok.i + 1, tok.i + 4)
                if hit is not None:
                    mark(hit, "naming")
            elif tok.lower_ == "our" and tok.i + 1 < len(doc):
                hit = _first_mention_from(mentions, tok.i + 1, tok.i + 3)
                if hit is None and tok.head.lower_ in _SELF_NOUNS:
                    # "Our approach, Adaptive Multi-Head Contrastive Learning (AMCL), ..."
                    appos = [c for c in tok.head.children if c.dep_ == "appos"]
                    if appos:
                        hit = _first_mention_from(
                            mentions, appos[0].left_edge.i, appos[0].right_edge.i + 1
                        )
                if hit is not None and hit.label_ in {"Method", "Dataset"}:
                    mark(hit, "our")
        mentions = _proposed_tasks_as_methods(mentions, proposed, info)
        doc.spans[ENTITY_SPANS] = sorted(mentions, key=lambda s: s.start)

    def _mark_object(self, doc: Doc, verb, mentions: list[Span], mark, info: dict) -> None:
        for m in mentions:  # a coined name right after the verb: "we propose DeCoRe, a ..."
            if (
                0 < m.start - verb.i <= 5
                and is_named(m, info)
                and m.label_ in {"Method", "Dataset"}
            ):
                between = doc[verb.i + 1 : m.start]
                if not any(t.pos_ == "VERB" or t.is_sent_start for t in between):
                    mark(m, "propose")
                    return
        objects = [c for c in verb.children if c.dep_ in {"dobj", "obj", "attr", "oprd"}]
        # "in this work, a computational framework was developed": the passive's subject
        objects = [c for c in verb.children if c.dep_ == "nsubjpass"] or objects
        gerunds = [c for c in verb.children if c.dep_ in {"xcomp", "ccomp"} and c.tag_ == "VBG"]
        if not objects and gerunds:  # "we propose using multiple projection heads"
            objects = [c for c in gerunds[0].children if c.dep_ in {"dobj", "obj"}]
        if not objects:
            for prep in (c for c in verb.children if c.dep_ in {"prep", "prt"}):
                objects += [c for c in prep.children if c.dep_ == "pobj"]
        if not objects:  # "this paper introduces and evaluates PAVe"
            for conj in (c for c in verb.children if c.dep_ == "conj" and c.pos_ == "VERB"):
                objects += [c for c in conj.children if c.dep_ in {"dobj", "obj"}]
        for obj in objects[:2]:  # "we propose {\\mname}, a plug-and-play framework": 2 objects
            if self._mark_one(doc, verb, obj, mentions, mark, info):
                return

    def _mark_one(self, doc: Doc, verb, obj, mentions: list[Span], mark, info: dict) -> bool:
        """Mark the proposal an object phrase names; return whether one was found."""
        subtree = doc[obj.left_edge.i : obj.right_edge.i + 1]
        words = [t.i for t in doc[verb.i + 1 : subtree.end] if not t.is_space]
        end = words[self.window - 1] + 1 if len(words) >= self.window else subtree.end
        clauses = {
            t.i for c in obj.children if c.dep_ in {"relcl", "acl", "prep"} for t in c.subtree
        }
        inside = [
            m
            for m in mentions
            if m.start >= subtree.start and m.end <= end and m.root.i not in clauses
        ]
        named = [m for m in inside if is_named(m, info)]
        if not named:
            after = _name_after_comma(doc, subtree.end, mentions, info)
            if after is not None:  # "we develop a baseline method, First Session Adaptation"
                mark(after, "apposition")
                return True
        if not inside:  # "we propose {\\mname}, a plug-and-play framework"
            appos = [c for c in obj.children if c.dep_ == "appos"]
            if appos:
                obj = appos[0]
        if inside:
            if named and named[0] is not inside[0]:
                inside = named + [m for m in inside if m is not named[0]]
            mark(inside[0], "propose")
            for extra in inside[1:]:
                if extra.label_ == inside[0].label_ and _joined_by_and(doc, inside[0], extra):
                    mark(extra, "propose")
            return True
        chunk = doc[obj.left_edge.i : obj.i + 1]
        table = TokenTable(doc)
        span = content_tokens(chunk, self.lexicon, table)
        words = 0 if span is None else sum(1 for t in span if t.text != "-")
        if span is None or len(span) < 2 or words > 6:
            return False
        label = phrase_type(span, self.lexicon, table) or "Method"
        if label not in {"Method", "Dataset"}:
            return False
        new = Span(doc, span.start, span.end, label=label)
        if any(m.start < new.end and new.start < m.end for m in mentions):
            return False
        mentions.append(new)
        info[mention_key(new)] = {
            "rule": f"{self.name}.unnamed",
            "confidence": 0.5,
            "benchmark": False,
            "group": None,
        }
        mark(new, "unnamed")
        return True


_SELF_NOUNS = {
    "approach",
    "method",
    "model",
    "framework",
    "system",
    "algorithm",
    "technique",
    "architecture",
    "solution",
    "work",
    "paper",
    "study",
    "benchmark",
    "dataset",
}


def _acts_as_verb(tok) -> bool:
    """Whether a token is used as a verb: tagged one, right after "we", or parsed as one,
    with a subject and an object ("We present BitDance, ...", where the tagger read
    "present" as an adjective)."""
    if tok.pos_ == "VERB" or _after_we(tok):
        return True
    deps = {c.dep_ for c in tok.children}
    return "nsubj" in deps and bool(deps & {"dobj", "obj"})


def _after_we(tok) -> bool:
    return tok.i > 0 and tok.nbor(-1).lower_ == "we"


def _has_we_subject(verb) -> bool:
    for child in verb.children:
        if child.dep_ in {"nsubj", "nsubjpass"} and child.lower_ in {"we", "i"}:
            return True
        if (
            child.dep_ == "nsubj"
            and child.lower_ in {"paper", "work", "study", "article"}
            and any(t.lower_ in {"this", "our"} for t in child.children)
        ):
            return True  # "This paper introduces X"
    if verb.dep_ in {"conj", "xcomp"} and verb.head is not verb:
        return _has_we_subject(verb.head)
    if verb.dep_ == "auxpass" or any(c.dep_ == "auxpass" for c in verb.children):
        return any(
            t.lower_ in {"this", "here", "paper"} for t in verb.doc[verb.left_edge.i : verb.i]
        )
    return False


def proposed_method(doc: Doc, mentions: list[Span]) -> Span | None:
    """Return the Method the paper proposes (``doc._.kg_proposed``): its first coined name,
    else its first descriptive proposal, or a longer proposal that ends with that one."""
    proposed = {(s, e) for s, e, _ in doc_data(doc, "kg_proposed")}
    found = [m for m in mentions if m.label_ == "Method" and (m.start_char, m.end_char) in proposed]
    info = doc_data(doc, "kg_mention_info")
    named = [m for m in found if is_named(m, info)]
    main = (named or found or [None])[0]
    for m in found:  # "sparse Transformer" -> "adaptively sparse Transformer"
        if main is not None and len(m) > len(main) and m.text.endswith(main.text):
            main = m
    return main


def is_named(mention: Span, info: dict) -> bool:
    """Whether a mention is a coined name or a defined acronym, not a descriptive phrase
    nor a name that only describes something else ("LLM-driven", "RL-based")."""
    rule = info.get(mention_key(mention), {}).get("rule", "")
    modifier = mention.root.dep_ == "amod" or (
        len(mention) > 2 and mention[-2].text == "-" and mention[-1].lower_ in _MODIFIER_SUFFIXES
    )
    return rule.endswith((".abbreviation", ".name", ".title")) and not modifier


def _proposed_tasks_as_methods(mentions: list[Span], proposed: list, info: dict) -> list[Span]:
    """Return the mentions with a proposed Task retyped as a Method, with its other mentions
    and its short form: what a paper proposes is a way of doing something, not a task."""
    keys = {(s, e) for s, e, _ in proposed}
    names: set[str] = set()
    for m in mentions:
        if m.label_ == "Task" and (m.start_char, m.end_char) in keys:
            names.add(m.text.lower())
            names.add((info.get(mention_key(m), {}).get("group") or "").lower())
    names.discard("")
    if not names:
        return mentions
    groups = {m: (info.get(mention_key(m), {}).get("group") or "").lower() for m in mentions}
    names |= {m.text.lower() for m in mentions if groups[m] in names}  # the short form
    out = []
    for m in mentions:
        if m.label_ == "Task" and (m.text.lower() in names or groups[m] in names):
            m = Span(m.doc, m.start, m.end, label="Method")
        out.append(m)
    return out


def _defined_passive_subject(verb, mentions: list[Span], info: dict) -> Span | None:
    """Return the subject of an agentless passive ("a ... framework (G-ACT) was developed")
    when it defines its acronym there: a new name, so the authors' own."""
    if any(c.dep_ == "agent" or c.lemma_ == "have" for c in verb.children):
        return None  # "proposed by ...", "have been proposed": someone else's
    for subject in (c for c in verb.children if c.dep_ == "nsubjpass"):
        if not any(c.dep_ == "det" for c in subject.children):
            continue  # "Spoken Language Models (SLMs) are designed to ...": a description
        for m in mentions:
            entry = info.get(mention_key(m), {})
            if (
                subject in (m.root, m.root.head)
                and m.label_ in {"Method", "Dataset"}
                and entry.get("rule", "").endswith(".abbreviation")
                and entry.get("group") == m.text
            ):
                return m
    return None


def _name_after_comma(doc: Doc, i: int, mentions: list[Span], info: dict) -> Span | None:
    """Return the named mention right after a comma at token ``i``, if there is one."""
    if i >= len(doc) or doc[i].text != ",":
        return None
    hit = _first_mention_from(mentions, i + 1, i + 2)
    return hit if hit is not None and is_named(hit, info) else None


def _first_mention_from(mentions: list[Span], start: int, stop: int) -> Span | None:
    for m in mentions:
        if start <= m.start < stop:
            return m
    return None


def _joined_by_and(doc: Doc, first: Span, second: Span) -> bool:
    between = doc[first.end : second.start]
    return len(between) <= 2 and any(t.lower_ in {"and", ","} for t in between)


@Language.factory(
    "kg_proposals",
    assigns=["doc._.kg_proposed", "doc.spans"],
    requires=["doc.spans"],
    default_config={"lexicon": {"@misc": "kg.lexicon.v1", "path": ""}, "window": 12},
)
def make_proposal_finder(nlp: Language, name: str, lexicon: Lexicon, window: int) -> ProposalFinder:
    """Build the proposal finder."""
    return ProposalFinder(nlp, name, lexicon=lexicon, window=window)
