"""keras_bert.retrieval: a long document -> the passages a question is most likely answered in.

NumPy and plain Python: nothing here needs TensorFlow or Keras at query time. A document is cut
into overlapping passages on sentence boundaries (`PassageSplitter`), then ranked against a
question by an embedder's cosine (`DenseRanker`, passages embedded once per document and
cached), lexically (`Bm25Ranker`) or by both (`reciprocal_rank_fusion`). An `AnswerCalibrator`
turns the reader's spans over the passages into probabilities that compare across passages and
say when the document holds no answer.
"""

from keras_bert.retrieval.answer_calibrator import AnswerCalibrator
from keras_bert.retrieval.article_bm25_scorer import ArticleBm25Scorer
from keras_bert.retrieval.bm25_ranker import Bm25Ranker
from keras_bert.retrieval.bm25_ranker import word_tokens
from keras_bert.retrieval.dense_ranker import DenseRanker
from keras_bert.retrieval.embedding_cache import EmbeddingCache
from keras_bert.retrieval.passage import Passage
from keras_bert.retrieval.passage_splitter import PassageSplitter
from keras_bert.retrieval.rank_fusion import reciprocal_rank_fusion
from keras_bert.retrieval.sentence_splitter import split_sentences
from keras_bert.retrieval.tflite_embedder import TfliteEmbedder
