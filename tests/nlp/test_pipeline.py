"""The pipeline as spaCy assembles it: registered factories, the faster base components,
the tokenizer, the text it reads, a failing component."""

from __future__ import annotations

import pytest
from spacy.util import registry

from kg.ingest import Record
from kg.nlp import extract
from kg.nlp.results.component import find_numbers
from kg.nlp.text import clean_text, clean_text_map
from tests.conftest import EXAMPLES


def test_factory_registrations_are_exactly_kg_components():
    names = {n for n in registry.factories.get_all() if n.startswith("kg_")}
    assert names == {
        "kg_abbreviations",
        "kg_attribute_ruler",
        "kg_confidence",
        "kg_entities",
        "kg_lemmatizer",
        "kg_proposals",
        "kg_results",
        "kg_relations",
        "kg_tagger",
    }
    misc = {n for n in registry.misc.get_all() if n.startswith("kg.")}
    assert misc == {
        "kg.lexicon.v1",
        "kg.gazetteer.v1",
        "kg.head_priors.v1",
        "kg.word_clusters.v1",
        "kg.entity_classifier.v1",
        "kg.relation_classifier.v1",
        "kg.metric_linker.v1",
        "kg.score_classifier.v1",
        "kg.parse_number.v1",
        "kg.phrase_stats.v1",
        "kg.entity_calibration.v1",
    }
    assert "kg.tokenizer_tweaks.v1" in registry.callbacks.get_all()
    assert "kg.faster_base_components.v1" in registry.callbacks.get_all()


def _token_annotations(nlp, texts):
    names = [n for n in nlp.pipe_names if not n.startswith("kg_")]
    with nlp.select_pipes(enable=names):
        return [
            [(t.text, t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_) for t in doc]
            for doc in nlp.pipe(texts)
        ]


def test_faster_base_components_annotate_exactly_like_spacys(nlp):
    from kg.nlp import load_pipeline
    from kg.nlp.models.base_components import IndexedAttributeRuler, MatmulOps, MemoLemmatizer

    assert all(isinstance(node.ops, MatmulOps) for node in nlp.get_pipe("tok2vec").model.walk())
    assert isinstance(nlp.get_pipe("attribute_ruler"), IndexedAttributeRuler)
    assert isinstance(nlp.get_pipe("lemmatizer"), MemoLemmatizer)
    assert nlp.get_pipe("attribute_ruler")._pattern_index() is not None  # no silent fallback
    spacys = load_pipeline(overrides={"nlp.after_pipeline_creation": None})
    assert type(spacys.get_pipe("attribute_ruler")).__name__ == "AttributeRuler"
    texts = [clean_text(t) for t in EXAMPLES.read_text(encoding="utf-8").split("\n\n")]
    texts += ["I can't say he'd won't, y' know; nothin' is 'cause o' them.  Done ."]
    ours = _token_annotations(nlp, texts)
    assert ours == _token_annotations(spacys, texts)
    assert ours == _token_annotations(nlp, texts)  # and again, from what it remembered


def test_memo_lemmatizer_leaves_its_lookup_tables_as_loaded(nlp):
    lemmatizer = nlp.get_pipe("lemmatizer")
    doc = nlp("The encoders were trained on unlabelled corpora by the authors.")
    assert [t.lemma_ for t in doc][1:4] == ["encoder", "be", "train"]
    index = lemmatizer.lookups.get_table("lemma_index")
    assert all(isinstance(words, list) for words in index.values())  # sets only inside
    restored = type(lemmatizer)(nlp.vocab, None, "copy", mode="rule")
    restored.from_bytes(lemmatizer.to_bytes())
    assert restored.lookups.to_bytes() == lemmatizer.lookups.to_bytes()


def test_indexed_attribute_ruler_uses_spacys_matcher_for_operators(nlp):
    from spacy.pipeline import AttributeRuler

    from kg.nlp.models.base_components import IndexedAttributeRuler

    ruler = IndexedAttributeRuler(nlp.vocab, "rules")
    ruler.add_patterns(
        [
            {"patterns": [[{"LOWER": "deep"}, {"LOWER": "learning"}]], "attrs": {"TAG": "X1"}},
            {"patterns": [[{"TAG": "NN", "OP": "+"}]], "attrs": {"TAG": "X2"}},
        ]
    )
    assert ruler._pattern_index() is None  # "OP" is beyond the index
    doc = ruler(nlp.make_doc("deep learning works"))
    assert [t.tag_ for t in doc] == ["X1", "", ""]
    ruler = IndexedAttributeRuler(nlp.vocab, "rules")
    ruler.add_patterns(
        [
            {
                "patterns": [[{"LOWER": "deep"}, {"LOWER": {"REGEX": "^learn"}}]],
                "attrs": {"TAG": "X1"},
            }
        ]
    )
    assert ruler._pattern_index() is not None
    doc = ruler(nlp.make_doc("deep learning and deep nets"))
    assert [t.tag_ for t in doc] == ["X1", "", "", "", ""]
    # patterns added or loaded after use are matched as spaCy's ruler matches them
    other = IndexedAttributeRuler(nlp.vocab, "rules")
    other.add_patterns([{"patterns": [[{"LOWER": "nets"}]], "attrs": {"TAG": "X2"}}])
    spacys = AttributeRuler(nlp.vocab, "rules")
    spacys.add_patterns(ruler.patterns)
    for each in (ruler, spacys):
        each.from_bytes(other.to_bytes())
        each.add_patterns([{"patterns": [[{"LOWER": "and"}]], "attrs": {"TAG": "X3"}}])
    text = "deep learning and deep nets"
    tags = [t.tag_ for t in ruler(nlp.make_doc(text))]
    assert tags == [t.tag_ for t in spacys(nlp.make_doc(text))]
    assert tags[2:] == ["X3", "", "X2"]
    fresh = [  # as many patterns as before, so only clearing can tell the sets apart
        {"patterns": [[{"LOWER": word}]], "attrs": {"TAG": f"Y{k}"}}
        for k, word in enumerate(["deep", "learning", "nets"])
    ]
    for each in (ruler, spacys):
        each.clear()
        each.add_patterns(fresh)
    tags = [t.tag_ for t in ruler(nlp.make_doc(text))]
    assert tags == [t.tag_ for t in spacys(nlp.make_doc(text))] == ["Y0", "Y1", "", "Y0", "Y2"]


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("We test on CityScenes-5K.", "CityScenes-5K"),
        ("Pretrained on ImageNet-21K and tuned", "ImageNet-21K"),
        ("It runs Falcon-40B.", "Falcon-40B"),
    ],
)
def test_tokenizer_keeps_sized_names_whole(nlp, text, token):
    assert token in [t.text for t in nlp.make_doc(text)]


def test_tokenizer_still_splits_units_and_percentages(nlp):
    words = [t.text for t in nlp.make_doc("It gains 3-5% with 10K samples.")]
    assert words[2:] == ["3", "-", "5", "%", "with", "10", "K", "samples", "."]


def test_text_clean_maps_offsets_back():
    raw = r"We get 11\% and 4.6$\times$ speedup with \textbf{FastNet}."
    clean = clean_text_map(raw)
    assert clean.text == "We get 11% and 4.6x speedup with FastNet."
    start = clean.text.index("FastNet")
    assert raw[slice(*clean.span(start, start + len("FastNet")))] == "FastNet"
    assert [(n, u) for _, _, _, n, u in find_numbers(clean.text)] == [("11", "%"), ("4.6", "x")]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (r"\texttt{D}ual-\texttt{H}ead \texttt{O}ptimization", "Dual-Head Optimization"),
        (r"the Fr\'echet Inception Distance", "the Fréchet Inception Distance"),
        (r"Fr{\'e}chet and G\"odel", "Fréchet and Gödel"),
        (r"an $\ell_2$ penalty", "an ℓ2 penalty"),
        (r"a $4\times$ speedup, 4\times less", "a 4x speedup, 4x less"),
        (r"as in~\cite{smith2020} and \href{https://x.org}{here}.", "as in  and here."),
        ("plain text, no markup", "plain text, no markup"),
    ],
)
def test_text_clean_removes_latex(raw, clean):
    assert clean_text(raw) == clean


def test_latex_never_reaches_names_and_offsets_point_into_the_original():
    text = (
        r"We propose \texttt{D}ual-\texttt{H}ead \texttt{O}ptimization (DHO), a method for "
        r"image generation. DHO lowers the Fr\'echet Inception Distance by $4\times$ on "
        r"the \textbf{CelebA} dataset."
    )
    (paper,) = extract([Record(id="p1", text=text)])
    names = {m.text for m in paper.mentions}
    assert "Dual-Head Optimization" in names
    assert not [n for n in names if "\\" in n or "texttt" in n or "{" in n]
    for m in paper.mentions:
        cleaned = clean_text(text[m.start : m.end])
        assert " ".join(cleaned.split()) == m.text, (m, text[m.start : m.end])
    for start, end in paper.sentences:
        assert 0 <= start < end <= len(text)


def test_a_failing_kg_component_goes_to_the_error_handler(nlp):
    """kg's components are spaCy Pipes: nlp.pipe hands a failing document to the handler
    set on the component (spaCy's default raises), naming the component."""
    from kg.nlp.component import KgComponent

    class Failing(KgComponent):
        def __init__(self, name):
            self.name = name

        def process(self, doc):
            raise ValueError(f"cannot read {doc.text!r}")

    failing = Failing("kg_failing")
    with pytest.raises(ValueError, match="cannot read"):
        list(failing.pipe([nlp.make_doc("x")]))
    seen = []
    failing.set_error_handler(lambda name, proc, docs, exc: seen.append((name, str(exc))))
    assert list(failing.pipe([nlp.make_doc("a b")])) == []
    assert seen == [("kg_failing", "cannot read 'a b'")]
