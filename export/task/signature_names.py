"""The export tensor-name contract: `ids` / `mask` / `segment_ids` outside, keras-hub names inside.

TF Serving's `serving_default` and every `.tflite` take int32 `ids`, `mask` and `segment_ids`,
the names of the TensorFlow Lite BERT question-answering example and the Task Library's
`BertQuestionAnswerer` / `BertNLClassifier`; keras_bert models take `token_ids`, `padding_mask`
and `segment_ids`. The translation happens here and nowhere else.
"""

# Exported input name -> keras_bert model input name, in the exported (alphabetical) order.
EXPORT_INPUTS = {"ids": "token_ids", "mask": "padding_mask", "segment_ids": "segment_ids"}


def model_inputs(exported):
    """`{ids, mask, segment_ids}` -> the model's `{token_ids, padding_mask, segment_ids}`."""
    missing = sorted(set(EXPORT_INPUTS) - set(exported))
    if missing:
        raise ValueError(
            f"Missing input(s) {missing}: exported BERT models take {list(EXPORT_INPUTS)}."
        )
    return {inner: exported[outer] for outer, inner in EXPORT_INPUTS.items()}


def exported_inputs(inputs):
    """The model's `{token_ids, padding_mask, segment_ids}` -> `{ids, mask, segment_ids}`."""
    return {outer: inputs[inner] for outer, inner in EXPORT_INPUTS.items()}


def exported_outputs(outputs):
    """A model's outputs as a flat `{name: tensor}` dict: QA keeps `start_logits` /
    `end_logits`, a single tensor (classifier, token classifier) becomes `logits`."""
    if isinstance(outputs, dict):
        return dict(outputs)
    return {"logits": outputs}
