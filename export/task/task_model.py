"""`load_task_model`: a fine-tuned keras_bert task model rebuilt from its config and weights."""


# The tasks the exporter has data readers for (`keras_bert.export.verification.data.TaskData`): the named
# tasks of `keras_bert.tasks.registry` (a generic TSV task has no fixed files or labels).
# keras_bert (and so TensorFlow) is imported inside the functions: `--help` stays fast.
TASKS = ("squad", "sst-2", "mrpc", "cola", "rte", "conll2003")


def task_labels(task_name):
    """The class names of `task_name` in class-id order (`None` for SQuAD's spans)."""
    import keras_bert

    if task_name not in TASKS:
        raise ValueError(f"Unknown task {task_name!r}; choose from {TASKS}.")
    labels = getattr(keras_bert.tasks.get_task(task_name), "labels", None)
    return list(labels) if labels is not None else None


def load_task_model(task_name, init_checkpoint, config_file=None, labels=None, log=print,
                    require_heads=True):
    """The fine-tuned model of `task_name` with its weights from `init_checkpoint`.

    Args:
        task_name: one of `TASKS`; picks `BertQuestionAnswerer` (squad),
            `BertTokenClassifier` (conll2003) or `BertClassifier` (GLUE).
        init_checkpoint: a fine-tuning output dir (its `best/`), a TF1 checkpoint or a
            Hugging Face folder; the task head must be in it.
        config_file: `bert_config.json`; defaults to the config next to `init_checkpoint`'s
            weights (`run_folder.model_config`: bert_config.json, else config.json).
        labels: class names; defaults to `task_labels(task_name)` (only their count is used).
        log: called with the checkpoint loader's summary line.
        require_heads: refuse a checkpoint without the task head (the default); False leaves
            the head freshly initialized (a pretrained encoder, to be overwritten).

    Returns:
        the task model.
    """
    import keras_bert
    from keras_bert.checkpoints import load_init_checkpoint
    from keras_bert.checkpoints.run_folder import model_config

    labels = labels or task_labels(task_name)
    # Without --bert_config_file: the folder's bert_config.json, or a Hugging Face config.json
    # (tools/gpu_squad.py's output, for one).
    config = (keras_bert.BertConfig.from_json_file(config_file) if config_file
              else model_config(init_checkpoint))
    encoder = keras_bert.BertEncoder.from_bert_config(config)
    task = keras_bert.tasks.get_task(task_name)
    if labels is not None and hasattr(task, "labels"):
        task.labels = tuple(labels)  # only their count shapes the model
    model = task.build_model(encoder)
    log(load_init_checkpoint(model, init_checkpoint, require_heads=require_heads))
    return model
