"""`MaskFiller`: fill the `[MASK]`s of a text with a pretrained model's masked-LM head."""

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.tokenization.packing import pack_segments

MASK = "[MASK]"


@keras_bert_export("keras_bert.analysis.MaskFiller")
class MaskFiller:
    """Asks a `BertPretrainer`'s masked-LM head what belongs at each `[MASK]` of a text.

    What has a pretraining run taught its model? Write a sentence with a `[MASK]` where a word
    should be, and read the head's guesses. The literal `[MASK]` in the text is the mask token
    (the tokenizer would split it into `[`, `mask`, `]`); the rest is tokenized as the model
    was trained. Texts longer than `sequence_length` keep their end. Runs on any Keras backend
    (the reference tokenizer and numpy packing, no TensorFlow).

    Args:
        pretrainer: a `keras_bert.BertPretrainer` (its masked-LM head is what answers).
        tokenizer: a `keras_bert.ReferenceTokenizer` with the model's vocabulary.
        sequence_length: int, the packed length. Defaults to 128.

    Example:
    >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "."]
    >>> filler = keras_bert.analysis.MaskFiller(
    ...     keras_bert.BertPretrainer(keras_bert.BertEncoder(vocab_size=9, hidden_size=8,
    ...         num_hidden_layers=1, num_attention_heads=2, intermediate_size=16,
    ...         max_position_embeddings=8)),
    ...     keras_bert.ReferenceTokenizer(vocab), sequence_length=8)
    >>> [len(words) for words in filler.fill("the [MASK] sat .", top_k=3)]
    [3]
    """

    def __init__(self, pretrainer, tokenizer, sequence_length=128):
        if sequence_length < 3:
            raise ValueError(f"sequence_length must be >= 3 ([CLS], one token, [SEP]); got {sequence_length}.")
        missing = [t for t in ("[CLS]", "[SEP]", "[PAD]", MASK) if t not in tokenizer.vocabulary]
        if missing:
            raise ValueError(f"The vocabulary has no {missing}: use the checkpoint's own vocab.txt.")
        self.pretrainer = pretrainer
        self.tokenizer = tokenizer
        self.sequence_length = sequence_length
        self.mask_token_id = tokenizer.token_to_id(MASK)

    def inputs(self, texts):
        """The pretrainer's inputs for `texts` (list of str with `[MASK]`s) and each text's mask count."""
        rows = []
        for text in texts:
            pieces = [self.tokenizer.encode(piece) for piece in text.split(MASK)]
            ids = pieces[0]
            for piece in pieces[1:]:
                ids = ids + [self.mask_token_id] + piece
            rows.append(ids[-(self.sequence_length - 2):])  # keep the end, where prompts ask
        mask = self.mask_token_id
        positions = [[i + 1 for i, t in enumerate(ids) if t == mask] for ids in rows]  # +1: [CLS]
        for text, found in zip(texts, positions):
            if not found and MASK in text:
                raise ValueError(f"{text!r} is longer than {self.sequence_length - 2} tokens and "
                                 f"its last ones hold no {MASK}: put the {MASK} nearer the end.")
            if not found:
                raise ValueError(f"No {MASK} in {text!r}: put {MASK} where a word goes.")
        ids = {t: self.tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")}
        inputs = pack_segments(rows, sequence_length=self.sequence_length, cls_token_id=ids["[CLS]"],
                               sep_token_id=ids["[SEP]"], pad_token_id=ids["[PAD]"])
        inputs["mask_positions"] = np.zeros((len(rows), max(map(len, positions))), "int32")
        for i, found in enumerate(positions):
            inputs["mask_positions"][i, : len(found)] = found
        return inputs, [len(found) for found in positions]

    def logits(self, texts, batch_size=64):
        """Masked-LM logits, float32 `[len(texts), max masks, vocab]`, and each text's mask count."""
        inputs, counts = self.inputs(texts)
        outputs = self.pretrainer.predict(inputs, batch_size=batch_size, verbose=0)
        return np.asarray(outputs["mlm_logits"], "float32"), counts

    def top_tokens(self, texts, top_k=5):
        """Each text's `[MASK]`s answered: per text, per mask, the `top_k` `(token, probability)`
        pairs, most likely first (probabilities over the whole vocabulary)."""
        logits, counts = self.logits(texts)
        answers = []
        for rows, count in zip(logits, counts):
            masks = []
            for row in rows[:count]:  # [vocab]
                probabilities = np.exp(row - row.max())
                probabilities /= probabilities.sum()
                masks.append([(self.tokenizer.vocabulary[i], float(probabilities[i]))
                              for i in np.argsort(-row)[:top_k]])
            answers.append(masks)
        return answers

    def fill(self, text, top_k=5):
        """The `top_k` tokens for each `[MASK]` of `text`, most likely first: list (per mask) of lists of str."""
        (masks,) = self.top_tokens([text], top_k)
        return [[token for token, _ in tokens] for tokens in masks]
