"""keras_bert.checkpoints: import (and export) of HF, google-research TF1 and keras-hub weights."""

from keras_bert.checkpoints.hf_checkpoint import encoder_from_hf_checkpoint
from keras_bert.checkpoints.hf_checkpoint import load_hf_checkpoint
from keras_bert.checkpoints.hf_checkpoint import read_hf_config
from keras_bert.checkpoints.hf_checkpoint import save_hf_checkpoint
from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
from keras_bert.checkpoints.keras_hub_checkpoint import encoder_from_keras_hub
from keras_bert.checkpoints.keras_hub_checkpoint import encoder_to_keras_hub
from keras_bert.checkpoints.keras_hub_checkpoint import load_keras_hub_backbone
from keras_bert.checkpoints.weight_map import LoadReport
from keras_bert.checkpoints.weight_map import collect_weights
from keras_bert.tensorflow_extra import export_tensorflow_symbols

# TensorFlow-only: imported now where TensorFlow is installed, else a one-line install hint on use.
export_tensorflow_symbols(globals(), {
    "encoder_from_tf1_checkpoint": "keras_bert.checkpoints.tf1_checkpoint",
    "load_tf1_checkpoint": "keras_bert.checkpoints.tf1_checkpoint",
    "save_tf1_checkpoint": "keras_bert.checkpoints.tf1_checkpoint",
})
