"""`PassageSplitter`: a document -> overlapping passages of whole sentences, under a token cap."""

import re

from keras_bert.api_export import keras_bert_export
from keras_bert.retrieval.passage import Passage
from keras_bert.retrieval.sentence_splitter import split_sentences

# The reader's window: 384 tokens, of which a question takes up to 64 and [CLS], [SEP], [SEP]
# three: 317 are left for the passage (apps/models/MODEL_CARD.md). The embedder reads 256
# (sentence-transformers' length for all-MiniLM-L6-v2), of which [CLS] and [SEP] take two.
# A passage of at most 254 tokens is read whole by both.
READER_PASSAGE_TOKENS = 384 - 64 - 3
EMBEDDER_PASSAGE_TOKENS = 256 - 2
DEFAULT_MAX_TOKENS = min(READER_PASSAGE_TOKENS, EMBEDDER_PASSAGE_TOKENS)
DEFAULT_OVERLAP_TOKENS = 64
_WORD = re.compile(r"\S+")


@keras_bert_export("keras_bert.retrieval.PassageSplitter")
class PassageSplitter:
    """Cuts a document into overlapping passages made of whole sentences.

    Sentences (`split_sentences`) are packed greedily into a passage while its WordPiece count
    stays within `max_tokens`; the next passage starts on the earliest sentence of the one
    before such that the shared sentences hold at most `overlap_tokens` tokens and still leave
    room for the first sentence the passage before lacked. So every character of the document is in some passage, a passage
    never ends inside a sentence, and an answer near a passage's edge is whole in its
    neighbour. A sentence longer than `max_tokens` on its own is the one thing cut: into runs of
    whole words of at most `overlap_tokens` tokens (`max_tokens` when there is no overlap), which
    are then packed like sentences.

    Token counts are the `tokenizer`'s (a `ReferenceTokenizer`, the reader's), and each
    passage's count is of its own text.

    Args:
        tokenizer: a `ReferenceTokenizer`.
        max_tokens: int, the most WordPiece tokens in a passage. Defaults to 254: both the
            reader (317 passage tokens beside a 64-token question in 384) and the embedder
            (256 with `[CLS]` and `[SEP]`) read such a passage whole.
        overlap_tokens: int, the most tokens two neighbouring passages share. Defaults to 64.

    Example:
    >>> tokenizer = keras_bert.ReferenceTokenizer(
    ...     ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "one", "two", "three", "four", "."])
    >>> splitter = keras_bert.retrieval.PassageSplitter(tokenizer, max_tokens=6,
    ...                                                 overlap_tokens=3)
    >>> [p.text for p in splitter("One two. Three. Four four four.")]
    ['One two. Three.', 'Three. Four four four.']
    """

    def __init__(self, tokenizer, max_tokens=DEFAULT_MAX_TOKENS,
                 overlap_tokens=DEFAULT_OVERLAP_TOKENS):
        if max_tokens < 1:
            raise ValueError(f"max_tokens={max_tokens}: a passage holds at least one token.")
        if not 0 <= overlap_tokens < max_tokens:
            raise ValueError(f"overlap_tokens={overlap_tokens}: use 0 to less than max_tokens "
                             f"({max_tokens}).")
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.overlap_tokens = overlap_tokens

    def count(self, text):
        """The WordPiece tokens of `text`."""
        return len(self.tokenizer.tokenize(text))

    def __call__(self, document):
        """The passages of `document` (a str), in order; `[]` when it holds no text."""
        if not isinstance(document, str):
            raise TypeError(f"`document` must be a str, got {type(document).__name__}.")
        units = []  # (start, end, tokens): sentences, and the word runs of overlong ones
        for start, end in split_sentences(document):
            tokens = self.count(document[start:end])
            if tokens <= self.max_tokens:
                units.append((start, end, tokens))
            else:
                units.extend(self._word_runs(document, start, end))
        return self._pack(document, units)

    def _word_runs(self, document, start, end):
        """An overlong sentence as consecutive runs of whole words, each of at most
        `overlap_tokens` tokens (or `max_tokens`); one word over that is cut by characters."""
        limit = self.overlap_tokens or self.max_tokens
        runs, run = [], None
        for match in _WORD.finditer(document, start, end):
            for piece in self._pieces(document, match.start(), match.end(), limit):
                if run is not None and run[2] + piece[2] <= limit:
                    run = (run[0], piece[1], run[2] + piece[2])
                else:
                    if run is not None:
                        runs.append(run)
                    run = piece
        runs.append(run)
        return runs

    def _pieces(self, document, start, end, limit):
        """One word as `(start, end, tokens)` pieces of at most `limit` tokens each."""
        tokens = self.count(document[start:end])
        if tokens <= limit:
            return [(start, end, tokens)]
        pieces = []
        while start < end:
            low, high = start + 1, end  # the longest prefix within the limit (one char fits)
            while low < high:
                middle = (low + high + 1) // 2
                if self.count(document[start:middle]) <= limit:
                    low = middle
                else:
                    high = middle - 1
            pieces.append((start, low, self.count(document[start:low])))
            start = low
        return pieces

    def _pack(self, document, units):
        passages, first = [], 0
        while first < len(units):
            last, total = first, units[first][2]
            while last + 1 < len(units) and total + units[last + 1][2] <= self.max_tokens:
                last += 1
                total += units[last][2]
            start, end = units[first][0], units[last][1]
            text = document[start:end]
            tokens = self.count(text)
            # Whole words tokenize as the sum of their parts; a word cut by characters may not,
            # so the passage's own count decides, dropping units from its end if need be.
            while tokens > self.max_tokens and last > first:
                last -= 1
                end = units[last][1]
                text, tokens = document[start:end], self.count(document[start:end])
            passages.append(Passage(text=text, start=start, end=end, num_tokens=tokens))
            if last + 1 >= len(units):
                break
            # The next passage starts on the earliest unit after `first` such that the units it
            # shares with this one hold at most `overlap_tokens` and, with the first unit this
            # one lacks, fit in `max_tokens`: every passage brings new text.
            following, shared = last + 1, 0
            fresh = units[last + 1][2]
            while (following - 1 > first
                   and shared + units[following - 1][2] <= self.overlap_tokens
                   and shared + units[following - 1][2] + fresh <= self.max_tokens):
                following -= 1
                shared += units[following][2]
            first = following
        return passages
