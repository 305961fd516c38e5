"""The raw-text signature of a sentence (or sentence-pair) classifier: strings in, labels out."""

import keras_bert
import tensorflow as tf

from keras_bert.export.serving.line_table import line_table
from keras_bert.export.serving.text_checks import check_same_batch, check_texts
from keras_bert.tokenization.tf_packing import pack


def add_classifier_text_endpoint(
    archive, model, vocab_file, labels_file, max_seq_length, do_lower_case=True, text_pair=False,
    name="serve_text",
):
    """Adds `name` to a `keras.export.ExportArchive`: text in, label and scores out.

    Tokenization (`keras_bert.BertTokenizer`, the exact google WordPiece ids) and packing
    (google's pair truncation, core ops: `keras_bert.tokenization.tf_packing.pack`) run in the graph; labels are
    read from `labels_file` (a SavedModel asset, one label per line in class-id order), and `tokens` (the WordPieces the model saw, from the `vocab_file` asset)
    is returned so a client can see what was truncated.

    Inputs: `text_a` string `[batch]`, and `text_b` string `[batch]` when `text_pair`.

    Outputs: `label` string `[batch]`, `label_id` int32 `[batch]`, `probabilities` and `logits`
    float `[batch, num_classes]`, `tokens` string `[batch, max_seq_length]` ("" for padding).

    Empty or whitespace-only texts fail with an error naming the input and batch index.
    """
    tokenizer = keras_bert.BertTokenizer(vocab_file, do_lower_case=do_lower_case, name="tokenizer")
    special = keras_bert.special_token_ids(tokenizer.vocabulary)
    vocab = line_table(vocab_file, default="[UNK]")
    labels = line_table(labels_file)
    archive.track(tokenizer)
    archive.track(vocab)
    archive.track(labels)

    def serve_text(*texts):
        names = ["text_a", "text_b"][: len(texts)]
        texts = check_same_batch(names, [check_texts(n, t) for n, t in zip(names, texts)])
        inputs = pack(
            [tokenizer(t) for t in texts], max_seq_length, special["[CLS]"], special["[SEP]"],
            special["[PAD]"],
        )  # {token_ids, segment_ids, padding_mask} [B, S]
        logits = model(inputs, training=False)  # [B, C]
        label_id = tf.argmax(logits, axis=-1, output_type=tf.int32)  # [B]
        tokens = vocab.lookup(tf.cast(inputs["token_ids"], tf.int64))  # [B, S]
        return {
            "label": labels.lookup(tf.cast(label_id, tf.int64)),
            "label_id": label_id,
            "probabilities": tf.nn.softmax(logits, axis=-1),
            "logits": logits,
            "tokens": tf.where(inputs["padding_mask"] > 0, tokens, ""),
        }

    names = ["text_a", "text_b"] if text_pair else ["text_a"]
    archive.add_endpoint(
        name, serve_text, input_signature=[tf.TensorSpec([None], tf.string, name=n) for n in names]
    )
