"""SQuAD training windows in one compact file, for carrying to the GPU machine
(`tools/gpu_bundle.py` writes it, `tools/gpu_squad.py` reads it), and the training examples
with article negatives that both `tools/gpu_bundle.py` and
`experiments/reader_negatives_windows.py` pack. No flags here, so all of them, and tests, can
import it."""

import numpy as np

NEGATIVES_BY = ("random", "bm25")

# The windows' file: token ids as uint16 (a 30,522-word vocabulary fits), the rest as the
# smallest integer types that hold them.
_WINDOW_DTYPES = dict(token_ids="uint16", segment_ids="uint8", padding_mask="uint8",
                      start_positions="int16", end_positions="int16")


def pack_windows(features, path, count=None):
    """Writes the first `count` (all if None) training windows of `features` (a
    `convert_squad_examples(..., is_training=True)` result) to `path` (.npz, compressed)."""
    inputs, labels = features.inputs(), features.labels()
    count = len(inputs["token_ids"]) if count is None else count
    arrays = dict(token_ids=inputs["token_ids"], segment_ids=inputs["segment_ids"],
                  padding_mask=inputs["padding_mask"], start_positions=labels["start_logits"],
                  end_positions=labels["end_logits"])
    np.savez_compressed(path, **{k: np.asarray(v[:count]).astype(_WINDOW_DTYPES[k])
                                 for k, v in arrays.items()})


def load_windows(path):
    """`(inputs, labels)` for a span model from `pack_windows`' file, as int32 arrays."""
    with np.load(path) as packed:
        missing = sorted(set(_WINDOW_DTYPES) - set(packed.files))
        if missing:
            raise ValueError(f"{path} lacks {', '.join(missing)}: write it with "
                             "tools.squad_windows.pack_windows (tools.gpu_bundle --squad_windows).")
        arrays = {k: packed[k].astype("int32") for k in _WINDOW_DTYPES}
    inputs = {k: arrays[k] for k in ("token_ids", "segment_ids", "padding_mask")}
    labels = {"start_logits": arrays["start_positions"], "end_logits": arrays["end_positions"]}
    return inputs, labels


def article_negative_examples(dataset, per_question, negatives_by="random", seed=0,
                              source="the SQuAD dataset"):
    """Training `SquadExample`s of `dataset` (SQuAD v1.1 dict) and, per question, `per_question`
    paragraphs of its article without its answers (`with_article_negatives`), chosen at random
    or by BM25 (`negatives_by`, one of `NEGATIVES_BY`: `ArticleBm25Scorer`'s hard negatives)."""
    from keras_bert.data.tasks.squad_article_negatives import with_article_negatives
    from keras_bert.data.tasks.squad_examples import squad_examples_from_dataset
    from keras_bert.retrieval.article_bm25_scorer import ArticleBm25Scorer

    if negatives_by not in NEGATIVES_BY:
        raise ValueError(f"negatives_by={negatives_by!r}: choose from {NEGATIVES_BY}.")
    scorer = ArticleBm25Scorer() if negatives_by == "bm25" else None
    dataset = with_article_negatives(dataset, per_question, seed=seed, scorer=scorer)
    return squad_examples_from_dataset(dataset, is_training=True, version_2_with_negative=True,
                                       source=source)
