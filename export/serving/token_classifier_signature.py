"""The raw-text signature of a token classifier (NER): a sentence in, one label per word out."""

import keras_bert
import tensorflow as tf

from keras_bert.export.serving.line_table import line_table
from keras_bert.export.serving.text_checks import check_texts
from keras_bert.tokenization.tf_packing import pack


def add_token_classifier_text_endpoint(
    archive, model, vocab_file, labels_file, max_seq_length, do_lower_case=True,
    name="serve_text",
):
    """Adds `name` to a `keras.export.ExportArchive`: whitespace-separated words in, tags out.

    Mirrors `keras_bert.data.convert_ner_sentences` + `word_predictions` in TensorFlow ops:
    each word is WordPiece-tokenized on its own (a word with no pieces becomes `[UNK]`), its
    label is read on its first piece, and words that no longer fit in `max_seq_length` (with
    `[CLS]` and `[SEP]`) are tagged `O`. Words are split at ASCII whitespace.

    Inputs: `text` string `[batch]`.

    Outputs: `words` and `labels` string `[batch, max_words]` (padded with ""), `num_words`
    int32 `[batch]`, `truncated` bool `[batch]` (some words were cut off and tagged `O`).
    """
    tokenizer = keras_bert.BertTokenizer(vocab_file, do_lower_case=do_lower_case, name="tokenizer")
    ids = keras_bert.special_token_ids(tokenizer.vocabulary)
    labels = line_table(labels_file)
    archive.track(tokenizer)
    archive.track(labels)
    unk_id = ids["[UNK]"]

    def serve_text(text):
        text = check_texts("text", text)
        words = tf.strings.split(text)  # ragged [B, W]
        row_of_word = words.value_rowids()  # [N] (N = words in the batch)
        pieces = tokenizer(words.flat_values)  # ragged [N, P]
        # A word the tokenizer drops entirely (e.g. a control character) still gets [UNK].
        pieces = _unk_for_empty(pieces, unk_id)
        lengths = pieces.row_lengths()  # [N]
        # Pieces up to and including each word, counted within its own sentence.
        through = tf.cumsum(lengths)
        sentence_start = tf.gather(tf.concat([[0], through], 0), words.row_starts())  # [B]
        through -= tf.gather(sentence_start, row_of_word)
        kept = 1 + through <= max_seq_length - 1  # [CLS] + pieces must leave room for [SEP]
        position = 1 + through - lengths  # each word's first piece, after [CLS]
        kept_pieces = tf.ragged.boolean_mask(pieces, kept)  # [K, P]
        token_ids = tf.RaggedTensor.from_value_rowids(
            kept_pieces, tf.boolean_mask(row_of_word, kept), nrows=tf.shape(text, tf.int64)[0]
        ).merge_dims(1, 2)  # [B, None]
        inputs = pack([token_ids], max_seq_length, ids["[CLS]"], ids["[SEP]"], ids["[PAD]"])
        logits = model(inputs, training=False)  # [B, S, C]
        # Word k reads the logits at (its sentence, its first piece); cut-off words read row 0.
        where = tf.stack([row_of_word, tf.where(kept, position, 0)], axis=1)  # [N, 2]
        label_id = tf.argmax(tf.gather_nd(logits, where), axis=-1)  # [N]
        word_labels = tf.where(kept, labels.lookup(label_id), "O")  # [N]
        word_labels = words.with_flat_values(word_labels)
        return {
            "words": words.to_tensor(""),
            "labels": word_labels.to_tensor(""),
            "num_words": tf.cast(words.row_lengths(), tf.int32),
            "truncated": tf.reduce_any(words.with_flat_values(~kept).to_tensor(False), axis=1),
        }

    archive.add_endpoint(
        name, serve_text, input_signature=[tf.TensorSpec([None], tf.string, name="text")]
    )


def _unk_for_empty(pieces, unk_token_id):
    """Ragged `[N, P]` WordPieces, with `[unk_token_id]` for the rows that have none."""
    empty = tf.cast(pieces.row_lengths() == 0, tf.int64)  # [N]
    fill = tf.RaggedTensor.from_row_lengths(
        tf.fill([tf.reduce_sum(empty)], tf.cast(unk_token_id, pieces.dtype)), empty
    )  # [N, 0 or 1]
    return tf.concat([pieces, fill], axis=1)  # row-wise: pieces, then [UNK] if there were none
