"""The random state a resumable checkpoint must hold besides the weights."""


def random_states(model):
    """The model's variables that are not weights: the dropout layers' `SeedGenerator` states.

    `tf.train.Checkpoint(model=...)` saves a Keras 3 model's weights but not these, so a run
    resumed from such a checkpoint restarts every dropout counter at zero and draws other masks
    than an uninterrupted run (measured: a fine-tuning run killed at step 32 and resumed ended
    at another dev loss). Checkpoint them beside the model (`random_states=...`).
    """
    weights = {w.path for w in model.weights}
    return [v.value for v in model.variables if v.path not in weights]
