"""keras_bert.training: optimizers, schedules, losses, tf.distribute strategies and training loops."""

from keras_bert.lazy_package import lazy_exports

lazy_exports(
    globals(),
    symbols={
        "Budget": "keras_bert.training.budget_schedule",
        "BudgetSchedule": "keras_bert.training.budget_schedule",
        "mix_targets": "keras_bert.training.distillation",
        "teacher_probabilities": "keras_bert.training.distillation",
        "data_parallel": "keras_bert.training.keras_distribution",
        "model_parallel": "keras_bert.training.keras_distribution",
        "FinetuneConfig": "keras_bert.training.finetune_config",
        "Finetuner": "keras_bert.training.finetuner",
        "create_optimizer": "keras_bert.training.optimizer",
        "default_jit_compile": "keras_bert.training.precision",
        "describe_machine": "keras_bert.training.precision",
        "resolve_dtype_policy": "keras_bert.training.precision",
        "set_dtype_policy": "keras_bert.training.precision",
        "FinetuneResult": "keras_bert.training.recipe",
        "apply_precision": "keras_bert.training.recipe",
        "build_task_model": "keras_bert.training.recipe",
        "finetune": "keras_bert.training.recipe",
        "load_bert_config": "keras_bert.training.recipe",
        "load_tokenizer": "keras_bert.training.recipe",
        "training_data": "keras_bert.training.recipe",
        "WarmupLinearDecay": "keras_bert.training.warmup_linear_decay",
    },
    submodules=(),
    # TensorFlow-only: a one-line install hint on use where TensorFlow is missing.
    tensorflow_symbols={
        "get_distribution_strategy": "keras_bert.training.tf_distribute",
        "PretrainingTrainer": "keras_bert.training.pretraining_trainer",
    },
)
