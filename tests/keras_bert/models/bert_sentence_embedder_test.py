"""`BertSentenceEmbedder`: the sentence-transformers recipe (mean over real tokens, then L2 norm)
checked against NumPy on the encoder's own sequence output."""

import numpy as np
import pytest

from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_sentence_embedder import BertSentenceEmbedder
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs


class BertSentenceEmbedderTest(TestCase):
    def embedder(self):
        encoder = BertEncoder(**TINY)
        randomize_weights(encoder, scale=0.2)
        return encoder, BertSentenceEmbedder(encoder)

    @pytest.mark.backend_portable
    def test_is_the_normalized_mean_of_real_tokens(self):
        encoder, embedder = self.embedder()
        inputs = tiny_inputs()  # rows of 7, 5 and 2 real tokens
        embedding = embedder.predict(inputs, verbose=0)["embedding"]
        sequence = encoder.predict(inputs, verbose=0)["sequence_output"]  # [3, 7, H]
        mask = inputs["padding_mask"][:, :, None].astype("float32")
        mean = (sequence * mask).sum(1) / mask.sum(1)  # the recipe, in NumPy
        expected = mean / np.linalg.norm(mean, axis=1, keepdims=True)
        self.assertEqual(embedding.shape, (3, TINY["hidden_size"]))
        self.assertAllClose(embedding, expected, atol=1e-6)
        self.assertAllClose(np.linalg.norm(embedding, axis=1), np.ones(3), atol=1e-6)

    @pytest.mark.backend_portable
    def test_padding_contents_do_not_move_the_embedding(self):
        _, embedder = self.embedder()
        inputs = tiny_inputs()
        other = {k: v.copy() for k, v in inputs.items()}
        padded = inputs["padding_mask"] == 0
        other["token_ids"][padded] = 5  # any ids where the mask is 0
        np.testing.assert_allclose(embedder.predict(other, verbose=0)["embedding"],
                                   embedder.predict(inputs, verbose=0)["embedding"], atol=1e-6)

    @pytest.mark.backend_portable
    def test_serialization_and_saving(self):
        _, embedder = self.embedder()
        self.run_serialization_test(embedder)
        self.run_model_saving_test(embedder, tiny_inputs())
