"""keras_bert.layers: the building blocks of the encoder and its heads."""

from keras_bert.layers.attention_mask import ATTENTION_PATTERNS
from keras_bert.layers.attention_mask import attention_mask
from keras_bert.layers.bert_embeddings import BertEmbeddings
from keras_bert.layers.classification_head import ClassificationHead
from keras_bert.layers.dropout import Dropout
from keras_bert.layers.forward_ops import FLOAT_OPS
from keras_bert.layers.forward_ops import ForwardOps
from keras_bert.layers.masked_lm_head import MaskedLMHead
from keras_bert.layers.mean_pooling import MeanPooling
from keras_bert.layers.pooler import Pooler
from keras_bert.layers.self_attention import SelfAttention
from keras_bert.layers.span_head import SpanHead
from keras_bert.layers.transformer_encoder import TransformerEncoder
