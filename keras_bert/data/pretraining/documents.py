"""Reads google-research/bert's pretraining text (a sentence per line, blank line between documents)."""

import tensorflow as tf

from keras_bert.api_export import keras_bert_export


def read_text_documents(input_files):
    """`[[sentence, ...], ...]` from the files, in order; a blank line ends a document.

    Raises `ValueError` naming the file when a file is empty or not UTF-8 text.
    """
    documents = []
    for path in input_files:
        with tf.io.gfile.GFile(path, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{path} is not UTF-8 text ({e}).") from None
        if not text.strip():
            raise ValueError(
                f"{path} is empty. Pretraining input is plain text, one sentence per line, with "
                "a blank line between documents."
            )
        current = []
        for line in text.splitlines():
            line = line.strip()
            if line:
                current.append(line)
            elif current:
                documents.append(current)
                current = []
        if current:  # each file also ends a document
            documents.append(current)
    return documents


@keras_bert_export("keras_bert.data.tokenize_documents")
def tokenize_documents(documents, tokenizer, batch_size=4096, progress=None):
    """Token ids of every sentence, with sentences that tokenize to nothing dropped.

    Args:
        documents: list of lists of str sentences.
        tokenizer: a `keras_bert.BertTokenizer` (in-graph, exact google ids).
        batch_size: int, sentences per tokenizer call.
        progress: optional callable `progress(num_sentences_done)`.

    Returns:
        list of documents, each a list of lists of int (empty documents dropped).
    """
    flat = [sentence for document in documents for sentence in document]
    ids = []
    for start in range(0, len(flat), batch_size):
        ids.extend(tokenizer(flat[start : start + batch_size]).to_list())
        if progress:
            progress(min(start + batch_size, len(flat)))
    result, cursor = [], 0
    for document in documents:
        sentences = [s for s in ids[cursor : cursor + len(document)] if s]
        cursor += len(document)
        if sentences:
            result.append(sentences)
    return result
