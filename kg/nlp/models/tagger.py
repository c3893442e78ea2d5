"""A second opinion on entities: a fine-tuned sentence encoder (all-MiniLM-L6-v2) that
tags every word piece B-/I-/O per entity type, run by ONNX Runtime (no torch).

The ``kg_tagger`` component writes, for each spaCy token, the tagger's probability of
each tag (:data:`TAGS`) on ``doc._.kg_tagger`` (a float32 array, tokens x tags: the shape
spacy-transformers gives its outputs); the entity recognizer reads it as candidates and
as features of its classifier (:mod:`kg.nlp.entities.tagger_features`). The encoder is uncased,
so a small word-shape id (:func:`shape_ids`) goes in beside each piece.

For training the classifier on what the tagger says of unseen text, ``outputs`` names a
file of out-of-fold outputs (scripts/train_tagger.py writes it): a doc whose text is in
it gets those instead of the model's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from kg.nlp.component import KgComponent
from kg.nlp.extensions import register_extensions
from kg.resources import trained_file
from kg.schema import ENTITY_TYPES

__all__ = [
    "TAGS",
    "EncoderTagger",
    "PieceOutputs",
    "TaggerComponent",
    "read_outputs",
    "shape_ids",
    "text_key",
    "token_probabilities",
    "write_outputs",
]

TYPES = ENTITY_TYPES
TAGS = ("O",) + tuple(f"{p}-{t}" for t in TYPES for p in ("B", "I"))
"""The tagger's classes: O, then B- and I- of each entity type."""

N_SHAPES = 40
WINDOW = 256
STRIDE = 32

register_extensions()


def _shape(word: str) -> int:
    if not word:
        return 0
    if word.isdigit():
        return 5
    if any(c.isdigit() for c in word):
        return 6
    if not any(c.isalpha() for c in word):
        return 7
    if word.islower():
        return 1
    if word.isupper():
        return 3 if len(word) > 1 else 2
    if word[0].isupper() and word[1:].islower():
        return 2
    return 4  # mixed case: BERTScore, iPhone


def shape_ids(text: str, offsets: list[tuple[int, int]], word_ids: list[int | None]) -> list[int]:
    """The shape id of each word piece: the case and digits of its word (lower, Title,
    UPPER, mIxed, digits, alphanumeric, punctuation), whether the piece starts the word,
    and whether the word follows a space (``GPT-4o`` is one name, ``GPT - 4o`` three).

    >>> shape_ids("BERT-base", [(0, 4), (4, 5), (5, 9)], [0, 1, 2])
    [33, 17, 11]
    """
    spans: dict[int, list[int]] = {}
    for (start, end), word in zip(offsets, word_ids, strict=True):
        if word is not None:
            span = spans.setdefault(word, [start, end])
            span[0], span[1] = min(span[0], start), max(span[1], end)
    out = []
    for (start, _), word in zip(offsets, word_ids, strict=True):
        if word is None:
            out.append(0)
            continue
        ws, we = spans[word]
        shape = _shape(text[ws:we])
        first = start == ws
        spaced = ws == 0 or text[ws - 1].isspace()
        out.append(shape + 10 * (first + 2 * spaced) if shape else 0)
    return out


@dataclass
class PieceOutputs:
    """The tagger's word pieces of one text: their character offsets and tag
    probabilities (pieces x :data:`TAGS`)."""

    offsets: np.ndarray  # int32, pieces x 2
    probs: np.ndarray  # float32, pieces x tags


class EncoderTagger:
    """The ONNX model and its tokenizer (``tokenizer.json``), one thread per process."""

    def __init__(self, model: Path, tokenizer: Path, *, threads: int = 1) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.enable_truncation(WINDOW, stride=STRIDE)
        self.tokenizer.no_padding()

    def windows(self, text: str) -> list:
        """The text's encodings: windows of :data:`WINDOW` pieces, overlapping by
        :data:`STRIDE`."""
        first = self.tokenizer.encode(text)
        return [first, *first.overflowing]

    def predict(self, texts: list[str]) -> list[PieceOutputs]:
        """Return the tag probabilities of each text's word pieces (a piece two windows
        share gets their mean). Each window is a run of its own, never batched with
        another: int8 activations are scaled by what the run holds, so a text's outputs
        must not depend on its neighbours (and no padding is computed)."""
        return [self._predict_one(text) for text in texts]

    def _predict_one(self, text: str) -> PieceOutputs:
        total: dict[tuple[int, int], np.ndarray] = {}
        count: dict[tuple[int, int], int] = {}
        for enc in self.windows(text):  # one run per window: no padding to compute
            ids = np.array([enc.ids], dtype=np.int64)
            shapes = np.array([shape_ids(text, enc.offsets, enc.word_ids)], dtype=np.int64)
            (probs,) = self.session.run(
                None, {"input_ids": ids, "attention_mask": np.ones_like(ids), "shape_ids": shapes}
            )
            for j, (offset, word) in enumerate(zip(enc.offsets, enc.word_ids, strict=True)):
                if word is not None:
                    total[offset] = total.get(offset, 0) + probs[0, j]
                    count[offset] = count.get(offset, 0) + 1
        keys = sorted(total)
        offsets = np.array(keys, dtype=np.int32).reshape(-1, 2)
        mean = np.array([total[o] / count[o] for o in keys], dtype=np.float32)
        return PieceOutputs(offsets, mean.reshape(-1, len(TAGS)))


def token_probabilities(doc: Doc, pieces: PieceOutputs) -> np.ndarray:
    """The tag probabilities of each token of ``doc``: those of its first word piece (a
    token with no piece, such as a space, is "O")."""
    out = np.zeros((len(doc), len(TAGS)), dtype=np.float32)
    out[:, 0] = 1.0
    starts = pieces.offsets[:, 0] if len(pieces.offsets) else np.zeros(0, dtype=np.int32)
    for tok in doc:
        k = int(np.searchsorted(starts, tok.idx))
        if k < len(starts) and starts[k] < tok.idx + len(tok.text):
            out[tok.i] = pieces.probs[k]
    return out


def text_key(text: str) -> str:
    """The key of a text in a file of outputs: its SHA-256, hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_outputs(outputs: dict[str, PieceOutputs], path: Path) -> None:
    """Write outputs by text key as MessagePack: offsets int32, probabilities in 1/255."""
    import srsly

    data = {
        key: {
            "offsets": out.offsets.astype(np.int32).tobytes(),
            "probs": np.rint(out.probs * 255).astype(np.uint8).tobytes(),
        }
        for key, out in sorted(outputs.items())
    }
    Path(path).write_bytes(srsly.msgpack_dumps(data))


def read_outputs(path: Path) -> dict[str, PieceOutputs]:
    """Read a file :func:`write_outputs` wrote."""
    import srsly

    data = srsly.msgpack_loads(Path(path).read_bytes())
    out = {}
    for key, row in data.items():
        offsets = np.frombuffer(row["offsets"], dtype=np.int32).reshape(-1, 2)
        probs = np.frombuffer(row["probs"], dtype=np.uint8).reshape(-1, len(TAGS))
        out[key] = PieceOutputs(offsets, probs.astype(np.float32) / 255)
    return out


class TaggerComponent(KgComponent):
    """Write the encoder tagger's token probabilities on ``doc._.kg_tagger``."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        tagger: EncoderTagger | None,
        outputs: dict[str, PieceOutputs] | None = None,
        batch_size: int = 16,
    ) -> None:
        self.name = name
        self.tagger = tagger
        self.outputs = outputs or {}
        self.batch_size = batch_size

    def process(self, doc: Doc) -> None:
        self._annotate([doc])

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        batch: list[Doc] = []
        for doc in stream:
            batch.append(doc)
            if len(batch) >= self.batch_size:
                yield from self._annotate(batch)
                batch = []
        yield from self._annotate(batch)

    def _annotate(self, docs: list[Doc]) -> list[Doc]:
        known = {k: self.outputs.get(text_key(doc.text)) for k, doc in enumerate(docs)}
        todo = [k for k, out in known.items() if out is None]
        if todo and self.tagger is not None:
            for k, out in zip(todo, self.tagger.predict([docs[k].text for k in todo]), strict=True):
                known[k] = out
        for k, doc in enumerate(docs):
            if known[k] is not None:
                doc._.kg_tagger = token_probabilities(doc, known[k])
        return docs


@Language.factory(
    "kg_tagger",
    assigns=["doc._.kg_tagger"],
    default_config={"model": "", "outputs": "", "batch_size": 16, "threads": 1},
)
def make_tagger(
    nlp: Language, name: str, model: str, outputs: str, batch_size: int, threads: int
) -> TaggerComponent:
    """The encoder tagger: ``model`` is a folder with ``model.onnx`` and
    ``tokenizer.json`` (default: the shipped ``kg/nlp/data/tagger``); ``outputs`` a file
    of precomputed outputs by text (training only)."""
    folder = trained_file(model, "tagger", "encoder tagger")
    tagger = (
        EncoderTagger(folder / "model.onnx", folder / "tokenizer.json", threads=threads)
        if folder
        else None
    )
    return TaggerComponent(
        nlp,
        name,
        tagger=tagger,
        outputs=read_outputs(Path(outputs)) if outputs else None,
        batch_size=batch_size,
    )
