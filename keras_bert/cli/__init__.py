"""keras_bert's command-line tools (google-research/bert's script and flag names).

Most of them train or export through TensorFlow (tf.data, tf.distribute, checkpoints); where
TensorFlow is not installed, a tool that reaches for it stops with one line naming the install
instead of a traceback.
"""

import sys

from keras_bert.tensorflow_extra import TENSORFLOW_MODULES
from keras_bert.tensorflow_extra import missing_tensorflow


def _missing_tensorflow_hook(kind, error, traceback, previous=sys.excepthook):
    if isinstance(error, ModuleNotFoundError) and (error.name or "").split(".")[0] in (
        TENSORFLOW_MODULES
    ):
        tool = sys.argv[0].rsplit("/", 1)[-1].removesuffix(".py") or "This tool"
        print(f"{tool}: {missing_tensorflow('This tool', error)}", file=sys.stderr)
        sys.exit(1)
    previous(kind, error, traceback)


sys.excepthook = _missing_tensorflow_hook
