"""`TfliteEmbedder`: texts -> unit vectors with a sentence-embedder `.tflite`, on LiteRT (no TensorFlow)."""

import os
import time
import zipfile

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.integrity import sha256_file
from keras_bert.integrity import verify_file
from keras_bert.tokenization.packing import pack_segments
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from keras_bert.tokenization.vocab import special_token_ids

INPUT_NAMES = ("ids", "mask", "segment_ids")


@keras_bert_export("keras_bert.retrieval.TfliteEmbedder")
class TfliteEmbedder:
    """Embeds texts with a `.tflite` exported from a `BertSentenceEmbedder`
    (`keras_bert.export.tflite.sentence_embedder`; shipped: `apps/models/minilm_embedder_dynamic_int8.tflite`).

    Each text is tokenized with the `ReferenceTokenizer` (uncased), packed as
    `[CLS] text [SEP]` (cut to the file's sequence length) and run alone: the file's inputs
    are int32 `ids`, `mask`, `segment_ids` `[1, seq]`, its output `embedding` `[1, hidden]`, a
    unit vector pooled and normalized inside the graph. A `SHA256SUMS` beside the file, if
    any, must list it with its digest.

    Args:
        path: the `.tflite`.
        vocab_file: its `vocab.txt`; default: the one in the file's TFLite metadata (the
            export zips it there), else a `vocab.txt` beside the file.
        num_threads: LiteRT CPU threads (None: the runtime's default).

    Attributes:
        model_id: the file's SHA-256 (what `DenseRanker`'s cache keys on).
        sequence_length: the file's fixed input length.
        seconds: each text's run time in the last call.
        truncated: how many texts so far were longer than `sequence_length - 2` tokens.

    Example:
    ```python
    embed = keras_bert.retrieval.TfliteEmbedder("apps/models/minilm_embedder_dynamic_int8.tflite")
    vectors = embed(["Where does the Rhine rise?", "The Rhine rises in the Swiss Alps."])
    float(vectors[0] @ vectors[1])  # cosine, ~0.7
    ```
    """

    def __init__(self, path, vocab_file=None, num_threads=None):
        try:
            from ai_edge_litert.interpreter import Interpreter
        except ImportError:
            raise ImportError("Running a .tflite needs ai-edge-litert: pip install "
                              "'keras-exact-bert[export]'.") from None
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"`path` {path} does not exist: pass a sentence embedder "
                                    ".tflite (apps/models/minilm_embedder_dynamic_int8.tflite).")
        verify_file(path)  # a flipped weight bit would otherwise rank passages silently wrong
        try:
            interpreter = Interpreter(model_path=path, num_threads=num_threads)
        except ValueError as error:
            raise ValueError(f"{path} is not a valid .tflite model ({error}).") from None
        self._runner = interpreter.get_signature_runner()
        details = self._runner.get_input_details()
        if sorted(details) != sorted(INPUT_NAMES) or "embedding" not in self._runner.get_output_details():
            raise ValueError(
                f"{path} has inputs {sorted(details)} and outputs "
                f"{sorted(self._runner.get_output_details())}; a sentence embedder takes "
                f"{list(INPUT_NAMES)} and gives 'embedding'."
            )
        self.sequence_length = int(details["ids"]["shape"][1])
        self.path = path
        self.model_id = sha256_file(path)
        self.tokenizer = ReferenceTokenizer(_vocabulary(path, vocab_file), do_lower_case=True)
        # Looked up once: `encode_texts` would check the whole vocabulary on every call.
        self._special_ids = special_token_ids(self.tokenizer.vocabulary)
        self.seconds = []
        self.truncated = 0

    def __call__(self, texts):
        """float32 `[len(texts), hidden]`: the texts' embeddings, unit rows."""
        if isinstance(texts, str):
            raise TypeError("`texts` is one str: pass a list of texts.")
        texts = list(texts)
        token_ids = [self.tokenizer.encode(text) for text in texts]
        self.truncated += sum(len(ids) > self.sequence_length - 2 for ids in token_ids)
        ids = self._special_ids
        inputs = pack_segments(token_ids, sequence_length=self.sequence_length,
                               cls_token_id=ids["[CLS]"], sep_token_id=ids["[SEP]"],
                               pad_token_id=ids["[PAD]"])  # [CLS] text [SEP], cut and padded
        rows, self.seconds = [], []
        for i in range(len(texts)):
            begin = time.perf_counter()
            out = self._runner(ids=inputs["token_ids"][i:i + 1],
                               mask=inputs["padding_mask"][i:i + 1],
                               segment_ids=inputs["segment_ids"][i:i + 1])
            self.seconds.append(time.perf_counter() - begin)
            rows.append(out["embedding"][0])
        if not rows:
            return np.zeros((0, 0), np.float32)
        return np.stack(rows).astype(np.float32)  # [n, H]


def _vocabulary(path, vocab_file):
    """`vocab_file`, else the tokens of the `vocab.txt` zipped after the model (its TFLite
    metadata's file), else the path of a `vocab.txt` beside it."""
    if vocab_file is not None:
        if not os.path.isfile(vocab_file):
            raise FileNotFoundError(f"`vocab_file` {vocab_file} does not exist.")
        return vocab_file
    try:
        with zipfile.ZipFile(path) as files:
            lines = files.read("vocab.txt").decode("utf-8").split("\n")
        return lines[:-1] if lines and lines[-1] == "" else lines  # vocab.txt's own rule
    except (zipfile.BadZipFile, KeyError):
        pass
    beside = os.path.join(os.path.dirname(os.path.abspath(path)), "vocab.txt")
    if not os.path.isfile(beside):
        raise FileNotFoundError(f"{path} carries no vocab.txt in its metadata and none is "
                                "beside it: pass `vocab_file`.")
    return beside
