"""`Passage`: a span of a document, the unit a retriever ranks and a reader reads."""

import dataclasses

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.retrieval.Passage")
@dataclasses.dataclass(frozen=True)
class Passage:
    """`document[start:end]`, with its WordPiece token count.

    Attributes:
        text: str, exactly `document[start:end]`.
        start, end: int character offsets into the document the passage was cut from.
        num_tokens: int, the WordPiece tokens of `text` (no `[CLS]` / `[SEP]`).

    Example:
    >>> document = "One. Two."
    >>> p = keras_bert.retrieval.Passage(text=document[5:9], start=5, end=9, num_tokens=2)
    >>> p.text, p.start, p.end
    ('Two.', 5, 9)
    """

    text: str
    start: int
    end: int
    num_tokens: int
