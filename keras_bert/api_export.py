"""`keras_bert_export`: registers a public symbol for `.keras` saving and records its public name.

`renamed_config_keys` lets `from_config` load configs saved under an argument's older name.
"""

# Public name ("keras_bert.BertEncoder") -> symbol. `tests/api_test.py` checks that every
# name recorded here is re-exported by `keras_bert/__init__.py`.
PUBLIC_SYMBOLS = {}


def keras_bert_export(path):
    """Decorator: `@keras_bert_export("keras_bert.BertEncoder")`.

    Keras classes (those with `get_config`) are registered with `keras.saving.register_keras_serializable` under the package
    `keras_bert`, so `.keras` files name them `keras_bert>BertEncoder` and load without
    `custom_objects`.
    """

    def decorator(symbol):
        if isinstance(symbol, type) and hasattr(symbol, "get_config"):
            import keras  # here, not at the top: functions and dataclasses register without Keras

            keras.saving.register_keras_serializable(package="keras_bert")(symbol)
        PUBLIC_SYMBOLS[path] = symbol
        return symbol

    return decorator


def renamed_config_keys(config, renames):
    """A copy of a saved layer `config` with the keys of renamed arguments under their new names.

    `renames` maps an old argument name to its current one. Only `from_config` uses this: the
    constructors take the current names alone, and `.keras` files saved before a rename (their
    configs hold the old key) still load.
    """
    config = dict(config)
    for old, new in renames.items():
        if old in config:
            config.setdefault(new, config.pop(old))
    return config
