"""keras_bert.analysis: what the layers of a pretrained encoder represent (the masking lab's measures)."""

from keras_bert.analysis.cka import linear_cka
from keras_bert.analysis.layer_analysis import analyse_layers
from keras_bert.analysis.layer_analysis import representation_measures
from keras_bert.analysis.mask_filler import MaskFiller
from keras_bert.analysis.token_probe import TokenIdentityProbe
