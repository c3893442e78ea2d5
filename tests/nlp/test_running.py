"""Running the pipeline over many records: processes, memory, configs, nothing to do."""

from __future__ import annotations

import pytest

from kg.ingest import Record
from kg.nlp import extract


def test_extract_provenance_offsets(nlp):
    text = "We propose StrideNet for temporal action detection. StrideNet uses ResNet-50."
    (ex,) = list(extract([Record(id="p", text=text)]))
    for m in ex.mentions:
        assert text[m.start : m.end] == m.text
        start, end = ex.sentences[m.sentence]
        assert start <= m.start < m.end <= end
        assert m.rule.startswith(("kg_entities.", "kg_proposals.")) and 0 < m.confidence <= 1
    assert any(m.proposed and m.text == "StrideNet" for m in ex.mentions)


def test_extract_multiprocess_matches_single_process():
    records = [
        Record(
            id=f"p{i}",
            text=f"We propose Net{i}, which uses ResNet-50 for image "
            f"classification and reaches {80 + i}.5% accuracy on ImageNet.",
        )
        for i in range(6)
    ]
    one = [(e.record.id, [m.text for m in e.mentions]) for e in extract(records, batch_size=2)]
    two = [
        (e.record.id, [m.text for m in e.mentions])
        for e in extract(records, n_process=2, batch_size=2)
    ]
    assert one == two
    assert [i for i, _ in one] == [f"p{i}" for i in range(6)]


def test_extract_multiprocess_reports_a_pipeline_that_fails_to_load(tmp_path):
    records = [Record(id="p0", text="We propose Net0 for image classification.")]
    with pytest.raises(FileNotFoundError, match="missing.cfg"):
        list(extract(records, n_process=2, config=tmp_path / "missing.cfg"))


def test_extract_reads_a_config_again_after_it_is_edited(tmp_path):
    from thinc.api import Config

    from kg.resources import nlp_data_dir

    config = Config().from_disk(nlp_data_dir() / "pipeline.cfg", interpolate=False)
    path = tmp_path / "pipeline.cfg"
    records = [Record(id="p0", text="We propose StrideNet for image classification on ImageNet.")]

    def relations_with(bias: float | None) -> int:
        config["components"]["kg_relations"]["bias"] = bias  # 1e9: the classifier keeps none
        config.to_disk(path)
        return sum(len(e.relations) for e in extract(records, config=path))

    assert relations_with(None) > 0
    assert relations_with(1e9) == 0  # the same path, edited: not the cached pipeline
    assert relations_with(None) > 0


def test_chunks_keep_their_new_words_only_up_to_the_string_budget(nlp):
    from kg.nlp.running.workers import process_records as _process_records

    strings = nlp.vocab.strings

    def records(tag: str) -> list[Record]:
        text = f"We propose Zq{tag}Net, which uses ResNet-50 for image classification."
        return [Record(id=tag, text=text)]

    before = len(strings)
    _process_records(nlp, records("a"), 8, kept_strings=before + 10_000)
    assert "ZqaNet" in strings and len(strings) > before  # kept: under the budget
    before = len(strings)
    [ex] = _process_records(nlp, records("b"), 8, kept_strings=before)
    assert "ZqbNet" not in strings and len(strings) == before  # freed: budget reached
    assert "ZqbNet" in {m.text for m in ex.mentions}


@pytest.mark.parametrize("n_process", [1, 2])
def test_nothing_to_extract_loads_no_pipeline(tmp_path, n_process):
    """A resumed or added-to build with no new paper loads no pipeline and starts no
    workers: a config that does not exist is never read."""
    missing = tmp_path / "missing.cfg"
    assert list(extract([], n_process=n_process, config=missing)) == []
    with pytest.raises(Exception, match="missing.cfg"):
        list(extract([Record(id="p", text="We train a model.")], config=missing))
