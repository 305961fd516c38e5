"""select_layers: the copy computes the teacher's own layers, skipping the others."""

import numpy as np

from keras_bert.layers.forward_ops import FLOAT_OPS
from keras_bert.models.bert_classifier import BertClassifier
from keras_bert.models.bert_encoder import BertEncoder, encode
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from keras_bert.models.layer_selection import select_layers
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs

DEEP = dict(TINY, num_hidden_layers=4)


class SelectLayersTest(TestCase):
    def test_encoder_runs_the_kept_layers_of_the_teacher(self):
        teacher = BertEncoder(**DEEP)
        randomize_weights(teacher, scale=0.3)
        inputs = tiny_inputs(seed=5)
        student = select_layers(teacher, [0, 2, 3])
        self.assertEqual(student.num_hidden_layers, 3)
        # The oracle: the teacher's own layer objects, wired by `encode` with layer 1 left out.
        kept = [teacher.transformer_layers[i] for i in (0, 2, 3)]
        expected = encode(teacher.embeddings, kept, inputs, "bidirectional", FLOAT_OPS)[-1]
        actual = student.predict(inputs, verbose=0)["sequence_output"]
        self.assertAllClose(actual, np.asarray(expected), atol=1e-6)

    def test_keeping_every_layer_is_the_same_model(self):
        teacher = BertQuestionAnswerer(BertEncoder(**DEEP))
        randomize_weights(teacher, scale=0.3)
        inputs = tiny_inputs(seed=6)
        copy = select_layers(teacher, range(4))
        self.assertIsInstance(copy, BertQuestionAnswerer)
        expected = teacher.predict(inputs, verbose=0)
        actual = copy.predict(inputs, verbose=0)
        for name in ("start_logits", "end_logits"):
            self.assertAllClose(actual[name], expected[name], atol=1e-6)

    def test_task_head_is_copied_and_teacher_untouched(self):
        teacher = BertClassifier(BertEncoder(**DEEP), 3)
        randomize_weights(teacher, scale=0.3)
        before = [w.copy() for w in teacher.get_weights()]
        student = select_layers(teacher, [1])
        self.assertEqual((student.num_classes, student.encoder.num_hidden_layers), (3, 1))
        head = [l for l in student.layers if l is not student.encoder and l.weights]
        self.assertTrue(head)
        for layer in head:
            for got, want in zip(layer.get_weights(), teacher.get_layer(layer.name).get_weights()):
                np.testing.assert_array_equal(got, want)
        for got, want in zip(teacher.get_weights(), before):
            np.testing.assert_array_equal(got, want)

    def test_bad_layer_lists_are_clear(self):
        teacher = BertEncoder(**DEEP)
        for layers, message in (([], "empty"), ([2, 1], "increasing"), ([1, 1], "distinct"),
                                ([0, 4], "layers 0 to 3"), ([-1], "layers 0 to 3")):
            with self.assertRaisesRegex(ValueError, message):
                select_layers(teacher, layers)
        with self.assertRaisesRegex(ValueError, "BertEncoder or a task model"):
            select_layers("not a model", [0])
