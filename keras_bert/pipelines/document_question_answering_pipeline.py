"""`DocumentQuestionAnsweringPipeline`: retrieve, then read — a question over a whole document."""

import collections
import hashlib
import math

from keras_bert.api_export import keras_bert_export
from keras_bert.pipelines.question_answering_pipeline import QaInputError
from keras_bert.pipelines.question_answering_pipeline import QuestionAnsweringPipeline

RANKERS = ("bm25", "dense")


@keras_bert_export("keras_bert.DocumentQuestionAnsweringPipeline")
class DocumentQuestionAnsweringPipeline:
    """Answers a question from a long document by reading only its best passages.

    The document is cut into overlapping passages of whole sentences (`PassageSplitter`, once
    per document, cached), the passages are ranked against the question — lexically
    (`Bm25Ranker`, the default: recall@1 75.8 % against the embedder's 60.3 % on article-level
    SQuAD v1.1 dev, docs/retrieval.md) or by the sentence embedder's cosine (`DenseRanker`) —
    and the reader (`QuestionAnsweringPipeline`) reads the best `passages` of them. Candidates
    from all passages are merged by their start + end logits, as google-research/bert merges
    windows, and their offsets are mapped back onto the document.

    The reader is not yet trained to compare passages or to abstain (issue 55, part 3): its
    logits do not compare across passages, so reading more passages lowers F1 (on the last 4
    paragraphs of the first dev article, 56 questions: 1 passage 52.9, 3 passages 48.7,
    5 passages 46.0, the gold paragraph given 73.4; docs/retrieval.md), and the answer is the
    best span of the passages read even where the document holds no answer. Hence one passage
    by default.

    Args:
        reader: a `QuestionAnsweringPipeline`.
        splitter: a `retrieval.PassageSplitter`; default: the reader's tokenizer, 254 tokens,
            64 overlapping (a passage fits one reader window beside a 64-token question).
        embedder: a `retrieval.TfliteEmbedder`, needed for `ranker="dense"`.
        ranker: "bm25" or "dense".
        passages: int, how many of the best-ranked passages the reader reads.
        max_documents: int, documents whose passages (and rankers) are kept for later questions.

    Example:
    ```python
    qa = keras_bert.DocumentQuestionAnsweringPipeline.from_pretrained(
        "apps/models/squad_minilm_dynamic_int8.tflite")
    qa("Where is the Rhine's source?", whole_article)
    # {'answer': 'the Swiss Alps', 'score': 0.9, 'start': 31, 'end': 45, 'passage': 0, ...}
    ```
    """

    def __init__(self, reader, splitter=None, embedder=None, ranker="bm25", passages=1,
                 max_documents=16):
        from keras_bert.retrieval.passage_splitter import PassageSplitter

        if ranker not in RANKERS:
            raise ValueError(f"ranker={ranker!r}: choose from {RANKERS}.")
        if ranker == "dense" and embedder is None:
            raise ValueError('ranker="dense" needs an embedder: pass embedder='
                             "keras_bert.retrieval.TfliteEmbedder(path), or use ranker=\"bm25\".")
        if passages < 1:
            raise ValueError(f"passages={passages}: read at least 1 passage.")
        self.reader = reader
        self.splitter = splitter or PassageSplitter(reader.tokenizer)
        self.embedder = embedder
        self.ranker = ranker
        self.passages = passages
        self.max_documents = max_documents
        self._documents = collections.OrderedDict()  # sha256 -> (passages, ranker)

    @classmethod
    def from_pretrained(cls, reader_path, embedder_path=None, num_threads=None, **kwargs):
        """A pipeline on the reader at `reader_path` (anything
        `QuestionAnsweringPipeline.from_pretrained` takes) and, for `ranker="dense"` (the
        default when `embedder_path` is given), the embedder `.tflite` at `embedder_path`."""
        reader = QuestionAnsweringPipeline.from_pretrained(reader_path, num_threads=num_threads)
        embedder = None
        if embedder_path is not None:
            from keras_bert.retrieval.tflite_embedder import TfliteEmbedder

            embedder = TfliteEmbedder(embedder_path, num_threads=num_threads)
            kwargs.setdefault("ranker", "dense")
        return cls(reader, embedder=embedder, **kwargs)

    def split(self, document):
        """(the document's passages, its ranker), computed once per document text."""
        if not isinstance(document, str) or not document.strip():
            raise QaInputError("The document is empty: give the text to find the answer in.")
        key = hashlib.sha256(document.encode("utf-8")).hexdigest()
        if key in self._documents:
            self._documents.move_to_end(key)
            return self._documents[key]
        passages = self.splitter(document)
        if self.ranker == "bm25":
            from keras_bert.retrieval.bm25_ranker import Bm25Ranker

            ranker = Bm25Ranker([p.text for p in passages])
        else:
            from keras_bert.retrieval.dense_ranker import DenseRanker

            ranker = DenseRanker(self.embedder, [p.text for p in passages])
        self._documents[key] = (passages, ranker)
        while len(self._documents) > self.max_documents:
            self._documents.popitem(last=False)
        return passages, ranker

    def __call__(self, question, document, top_k=1, passages=None):
        """The best answer (a dict: `answer`, `score` (softmax over the merged candidates),
        `start` / `end` (character offsets into `document`), `start_logit`, `end_logit`,
        `passage` (its index among the document's passages), `passage_start` /
        `passage_end`), or with `top_k` > 1 a list of the best `top_k`."""
        if not isinstance(question, str) or not question.strip():
            raise QaInputError("The question is empty: type a question about the document.")
        all_passages, ranker = self.split(document)
        chosen = ranker.rank(question, top_k=passages or self.passages)
        candidates = {}
        for index in chosen:
            index = int(index)
            passage = all_passages[index]
            for answer in self.reader(question, passage.text, top_k=self.reader.task.n_best_size):
                if answer["start"] < 0:
                    continue
                span = (passage.start + answer["start"], passage.start + answer["end"])
                logit = answer["start_logit"] + answer["end_logit"]
                if span not in candidates or logit > candidates[span]["logit"]:
                    candidates[span] = dict(answer=answer["answer"], logit=logit,
                                            start_logit=answer["start_logit"],
                                            end_logit=answer["end_logit"], passage=index,
                                            passage_start=passage.start,
                                            passage_end=passage.end)
        ranked = sorted(candidates.items(), key=lambda item: -item[1]["logit"])
        if not ranked:
            empty = dict(answer="", score=0.0, start=-1, end=-1, start_logit=0.0, end_logit=0.0,
                         passage=-1, passage_start=-1, passage_end=-1)
            return empty if top_k == 1 else []
        best = ranked[0][1]["logit"]
        total = sum(math.exp(c["logit"] - best) for _, c in ranked)
        answers = []
        for (start, end), c in ranked[:top_k]:
            answers.append(dict(answer=c["answer"], score=math.exp(c["logit"] - best) / total,
                                start=start, end=end, start_logit=c["start_logit"],
                                end_logit=c["end_logit"], passage=c["passage"],
                                passage_start=c["passage_start"], passage_end=c["passage_end"]))
        return answers[0] if top_k == 1 else answers
