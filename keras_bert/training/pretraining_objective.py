"""The pretraining objectives a run can use, and the record of which one a run used."""

import json
import os
from keras_bert.atomic_files import atomic_open

# objective -> the encoder's attention pattern while pretraining.
#   mlm: BERT's masked language model (bidirectional, masked inputs).
#   causal_lm: next-token prediction, each position sees only itself and earlier ones (GPT).
#   bidirectional_lm: next-token prediction with no input masking and bidirectional attention;
#       only the target's own key is hidden, so it leaks in through a second layer.
PRETRAINING_OBJECTIVES = {
    "mlm": "bidirectional",
    "causal_lm": "causal",
    "bidirectional_lm": "hide_next",
}

OBJECTIVE_FILE = "pretraining_objective.json"


def write_pretraining_objective(output_dir, objective, **details):
    """Writes `pretraining_objective.json` (objective, attention pattern, masking details)."""
    record = {
        "objective": objective,
        "attention_pattern": PRETRAINING_OBJECTIVES[objective],
        **details,
    }
    with atomic_open(os.path.join(output_dir, OBJECTIVE_FILE)) as f:
        json.dump(record, f, indent=1)
    return record


def read_pretraining_objective(run_dir):
    """The record `write_pretraining_objective` left in `run_dir`; BERT's MLM when there is none
    (runs made before objectives were recorded, and google-format checkpoints)."""
    path = os.path.join(run_dir, OBJECTIVE_FILE)
    if not os.path.exists(path):
        return {"objective": "mlm", "attention_pattern": "bidirectional"}
    with open(path) as f:
        return json.load(f)
