"""`DocumentQuestionAnsweringPipeline`: retrieve, then read — a question over a whole document."""

import collections
import hashlib
import math
import os

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.pipelines.question_answering_pipeline import QaInputError
from keras_bert.pipelines.question_answering_pipeline import QuestionAnsweringPipeline

RANKERS = ("bm25", "dense", "rrf")
CALIBRATOR_FILE = "answer_calibrator.json"  # uses the embedder's cosine
BM25_CALIBRATOR_FILE = "answer_calibrator_bm25.json"  # for a pipeline without the embedder


@keras_bert_export("keras_bert.DocumentQuestionAnsweringPipeline")
class DocumentQuestionAnsweringPipeline:
    """Answers a question from a long document by reading only its best passages, or says
    the document holds no answer.

    The document is cut into overlapping passages of whole sentences (`PassageSplitter`, once
    per document, cached), the passages are ranked against the question — lexically
    (`Bm25Ranker`), by the sentence embedder's cosine (`DenseRanker`) or by both
    (`reciprocal_rank_fusion`, "rrf") — and the reader (`QuestionAnsweringPipeline`) reads the
    best `passages` of them, one window each.

    With a `calibrator` (`retrieval.AnswerCalibrator`; `from_pretrained` loads the
    `answer_calibrator.json` beside the reader, as apps/models ships it) every candidate span
    gets a probability that compares across passages (an estimate of its F1, from its logits,
    its passage's `[CLS]` logits and the retrieval scores), the answer is the most probable,
    and below the calibrator's threshold the answer is "" with `no_answer` True: the question
    is not answered in this document. Without one, candidates are merged by their start + end
    logits, as google-research/bert merges windows, which do not compare across passages
    (reading more passages then lowers F1, docs/retrieval.md), and the pipeline never abstains.

    Args:
        reader: a `QuestionAnsweringPipeline`.
        splitter: a `retrieval.PassageSplitter`; default: the reader's tokenizer, 254 tokens,
            64 overlapping (a passage fits one reader window beside a 64-token question).
        embedder: a `retrieval.TfliteEmbedder`, needed for `ranker` "dense" or "rrf" and for a
            calibrator that uses the cosine.
        ranker: "bm25", "dense" or "rrf"; default: the calibrator's, else "bm25".
        passages: int, how many of the best-ranked passages the reader reads; default: the
            calibrator's, else 1.
        calibrator: a `retrieval.AnswerCalibrator`, or None.
        max_documents: int, documents whose passages (and rankers) are kept for later questions.

    Example:
    ```python
    qa = keras_bert.DocumentQuestionAnsweringPipeline.from_pretrained(
        "apps/models/squad_minilm_dynamic_int8.tflite",
        embedder_path="apps/models/minilm_embedder_dynamic_int8.tflite")
    qa("Where is the Rhine's source?", whole_article)
    # {'answer': 'the Swiss Alps', 'score': 0.81, 'no_answer': False, 'start': 31, ...}
    qa("Who invented the telephone?", whole_article)
    # {'answer': '', 'score': 0.02, 'no_answer': True, 'start': -1, ...}
    ```
    """

    def __init__(self, reader, splitter=None, embedder=None, ranker=None, passages=None,
                 calibrator=None, max_documents=16):
        from keras_bert.retrieval.passage_splitter import PassageSplitter

        info = calibrator.info if calibrator is not None else {}
        ranker = ranker or info.get("ranker", "bm25")
        passages = passages or info.get("passages", 1)
        if ranker not in RANKERS:
            raise ValueError(f"ranker={ranker!r}: choose from {RANKERS}.")
        needs_embedder = ranker != "bm25" or (
            calibrator is not None and "cosine" in calibrator.features)
        if needs_embedder and embedder is None:
            raise ValueError(f'ranker={ranker!r} with this calibrator needs an embedder: pass '
                             "embedder=keras_bert.retrieval.TfliteEmbedder(path) (or "
                             "embedder_path= to from_pretrained).")
        if passages < 1:
            raise ValueError(f"passages={passages}: read at least 1 passage.")
        self.reader = reader
        self.splitter = splitter or PassageSplitter(reader.tokenizer)
        self.embedder = embedder
        self.ranker = ranker
        self.passages = passages
        self.calibrator = calibrator
        self.max_documents = max_documents
        self._documents = collections.OrderedDict()  # sha256 -> _Document

    @classmethod
    def from_pretrained(cls, reader_path, embedder_path=None, calibrator_path=None,
                        num_threads=None, **kwargs):
        """A pipeline on the reader at `reader_path` (anything
        `QuestionAnsweringPipeline.from_pretrained` takes), the embedder `.tflite` at
        `embedder_path` (if any), and the calibrator JSON at `calibrator_path`. Default
        calibrator: beside a `.tflite` reader, `answer_calibrator.json` (BM25 + embedder
        fusion, the cosine among its features) with an embedder, `answer_calibrator_bm25.json`
        (BM25 only) without one, as apps/models ships them; with neither file the pipeline
        merges logits and never abstains."""
        reader = QuestionAnsweringPipeline.from_pretrained(reader_path, num_threads=num_threads)
        embedder = None
        if embedder_path is not None:
            from keras_bert.retrieval.tflite_embedder import TfliteEmbedder

            embedder = TfliteEmbedder(embedder_path, num_threads=num_threads)
        if "calibrator" not in kwargs:
            from keras_bert.retrieval.answer_calibrator import AnswerCalibrator

            explicit = calibrator_path is not None
            if calibrator_path is None and str(reader_path).endswith(".tflite"):
                name = CALIBRATOR_FILE if embedder is not None else BM25_CALIBRATOR_FILE
                beside = os.path.join(os.path.dirname(os.path.abspath(reader_path)), name)
                calibrator_path = beside if os.path.exists(beside) else None
            calibrator = AnswerCalibrator.load(calibrator_path) if calibrator_path else None
            if calibrator is not None and embedder is None and "cosine" in calibrator.features:
                if explicit:
                    raise ValueError(f"The calibrator {calibrator_path} uses the embedder's "
                                     "cosine: pass embedder_path= too.")
                calibrator = None
            kwargs["calibrator"] = calibrator
        if embedder is not None and kwargs.get("calibrator") is None:
            kwargs.setdefault("ranker", "dense")
        return cls(reader, embedder=embedder, **kwargs)

    def split(self, document):
        """The document's `_Document` (passages, rankers), computed once per document text."""
        if not isinstance(document, str) or not document.strip():
            raise QaInputError("The document is empty: give the text to find the answer in.")
        key = hashlib.sha256(document.encode("utf-8")).hexdigest()
        if key in self._documents:
            self._documents.move_to_end(key)
            return self._documents[key]
        passages = self.splitter(document)
        texts = [p.text for p in passages]
        from keras_bert.retrieval.bm25_ranker import Bm25Ranker

        dense = None
        if self.embedder is not None and (self.ranker != "bm25" or self._uses("cosine")):
            from keras_bert.retrieval.dense_ranker import DenseRanker

            dense = DenseRanker(self.embedder, texts)
        entry = _Document(passages, Bm25Ranker(texts), dense)
        self._documents[key] = entry
        while len(self._documents) > self.max_documents:
            self._documents.popitem(last=False)
        return entry

    def _uses(self, feature):
        return self.calibrator is not None and feature in self.calibrator.features

    def retrieve(self, question, document, passages=None):
        """`[(passage index, {"bm25_match": .., "cosine": ..})]` of the passages the reader
        reads, best ranked first."""
        entry = self.split(document)
        bm25 = entry.bm25.scores(question)  # [P]
        cosines = None
        if entry.dense is not None:
            cosines = entry.dense.scores(question)  # [P]
        if self.ranker == "bm25":
            order = np.argsort(-bm25, kind="stable")
        elif self.ranker == "dense":
            order = np.argsort(-cosines, kind="stable")
        else:
            from keras_bert.retrieval.rank_fusion import reciprocal_rank_fusion

            order = reciprocal_rank_fusion(np.argsort(-bm25, kind="stable"),
                                           np.argsort(-cosines, kind="stable"))
        bound = max(entry.bm25.score_bound(question), 1e-9)
        return [(int(i), {"bm25_match": float(bm25[i]) / bound,
                          "cosine": None if cosines is None else float(cosines[i])})
                for i in order[:passages or self.passages]]

    def __call__(self, question, document, top_k=1, passages=None):
        """The best answer (a dict: `answer`, `score` (the calibrator's probability, or
        without one a softmax over the merged candidates), `no_answer` (True when the best
        candidate's probability is below the calibrator's threshold: `answer` is then "" and
        the rejected candidate is under `candidate`), `start` / `end` (character offsets into
        `document`), `start_logit`, `end_logit`, `passage` (its index among the document's
        passages), `passage_start` / `passage_end`), or with `top_k` > 1 a list of the best
        `top_k` candidates (each with its own `no_answer`)."""
        from keras_bert.retrieval.answer_calibrator import span_features
        from keras_bert.retrieval.answer_calibrator import window_statistics

        if not isinstance(question, str) or not question.strip():
            raise QaInputError("The question is empty: type a question about the document.")
        entry = self.split(document)
        candidates = {}
        for rank, (index, scores) in enumerate(self.retrieve(question, document, passages), 1):
            passage = entry.passages[index]
            data = self.reader.windows(question, passage.text)
            start_logits, end_logits = self.reader.runner(data.inputs)
            # A PassageSplitter passage fits one window; a longer one is judged by its first.
            cls_logits, lse = window_statistics(start_logits[0], end_logits[0],
                                                data.inputs["segment_ids"][0])
            for answer in self.reader.rank(data, start_logits, end_logits, passage.text):
                if answer["start"] < 0:
                    continue
                span = (passage.start + answer["start"], passage.start + answer["end"])
                features = span_features(answer["start_logit"], answer["end_logit"],
                                         cls_logits, lse, rank=rank, **scores)
                candidate = dict(answer=answer["answer"], start_logit=answer["start_logit"],
                                 end_logit=answer["end_logit"], passage=index,
                                 passage_start=passage.start, passage_end=passage.end,
                                 features=features)
                key = "probability" if self.calibrator is not None else "span_logit"
                candidate["key"] = (self.calibrator.probability(features)
                                    if self.calibrator is not None else features[key])
                if span not in candidates or candidate["key"] > candidates[span]["key"]:
                    candidates[span] = candidate
        ranked = sorted(candidates.items(), key=lambda item: -item[1]["key"])
        if not ranked:
            empty = dict(answer="", score=0.0, no_answer=True, start=-1, end=-1,
                         start_logit=0.0, end_logit=0.0, passage=-1, passage_start=-1,
                         passage_end=-1)
            return empty if top_k == 1 else []
        if self.calibrator is None:
            best = ranked[0][1]["key"]
            total = sum(math.exp(c["key"] - best) for _, c in ranked)
            scores = [math.exp(c["key"] - best) / total for _, c in ranked]
        else:
            scores = [c["key"] for _, c in ranked]
        answers = []
        for ((start, end), c), score in zip(ranked[:top_k], scores):
            answers.append(dict(answer=c["answer"], score=score,
                                no_answer=self._abstains(score), start=start, end=end,
                                start_logit=c["start_logit"], end_logit=c["end_logit"],
                                passage=c["passage"], passage_start=c["passage_start"],
                                passage_end=c["passage_end"]))
        if top_k > 1:
            return answers
        best = answers[0]
        if best["no_answer"]:
            return dict(answer="", score=best["score"], no_answer=True, start=-1, end=-1,
                        start_logit=0.0, end_logit=0.0, passage=-1, passage_start=-1,
                        passage_end=-1, candidate=best)
        return best

    def _abstains(self, score):
        return self.calibrator is not None and score < self.calibrator.threshold


class _Document:
    """A document's passages and rankers (the dense one None without an embedder)."""

    def __init__(self, passages, bm25, dense):
        self.passages, self.bm25, self.dense = passages, bm25, dense
