"""Masked-LM masking of one token sequence: selection, 80/10/10 replacement, whole-word option."""

import dataclasses
import math

import numpy as np

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.data.MaskingPolicy")
@dataclasses.dataclass(frozen=True)
class MaskingPolicy:
    """How masked-LM training examples are masked (BERT's recipe by default).

    A fraction `masked_lm_prob` of the maskable tokens (every token except `[CLS]`, `[SEP]`,
    `[PAD]`) is selected as prediction targets, at most `max_predictions_per_seq` per sequence.
    Each selected token is then replaced by `[MASK]` with probability `mask_token_rate`, by a
    random vocabulary token with probability `random_token_rate`, and left unchanged otherwise
    (80/10/10 in the paper: the model cannot rely on seeing `[MASK]`, and must keep a good
    representation of every observed token because any of them may be a target).

    The number selected per sequence is `n * masked_lm_prob` rounded stochastically (up with
    probability equal to its fraction), so the selection rate is exact in expectation for any
    length; google-research/bert rounds `len(tokens) * masked_lm_prob` to nearest instead.

    Args:
        masked_lm_prob: float in (0, 1]. Defaults to 0.15.
        max_predictions_per_seq: int >= 1. Defaults to 20 (google's value for length 128).
        mask_token_rate: float in [0, 1]. Defaults to 0.8.
        random_token_rate: float in [0, 1], with `mask_token_rate + random_token_rate <= 1`.
            Defaults to 0.1.
        do_whole_word_mask: bool. Select whole words: the WordPieces of a word ("##" pieces) are
            selected together or not at all. Replacement is still decided per token, as in
            google-research/bert. Defaults to `False`.
        max_span_length: int >= 1. Above 1, span masking (SpanBERT, Joshi et al. 2020): runs of
            consecutive whole words are selected, each run's length in words drawn from a
            geometric distribution with parameter `span_length_p` and clipped at this value,
            until the budget is reached. Defaults to 1 (no spans).
        span_length_p: float in (0, 1]. Defaults to 0.2 (SpanBERT's; mean span 3.8 words at 10).
    """

    masked_lm_prob: float = 0.15
    max_predictions_per_seq: int = 20
    mask_token_rate: float = 0.8
    random_token_rate: float = 0.1
    do_whole_word_mask: bool = False
    max_span_length: int = 1
    span_length_p: float = 0.2

    def __post_init__(self):
        if self.max_span_length < 1:
            raise ValueError(f"max_span_length must be >= 1, got {self.max_span_length}.")
        if not 0.0 < self.span_length_p <= 1.0:
            raise ValueError(f"span_length_p must be in (0, 1], got {self.span_length_p}.")
        if not 0.0 < self.masked_lm_prob <= 1.0:
            raise ValueError(f"masked_lm_prob must be in (0, 1], got {self.masked_lm_prob}.")
        if self.max_predictions_per_seq < 1:
            raise ValueError(
                f"max_predictions_per_seq must be >= 1, got {self.max_predictions_per_seq}."
            )
        rates = (self.mask_token_rate, self.random_token_rate)
        if min(rates) < 0 or sum(rates) > 1.0 + 1e-9:
            raise ValueError(
                "mask_token_rate and random_token_rate must be >= 0 and sum to at most 1 (the "
                f"rest stay unchanged); got {self.mask_token_rate} and {self.random_token_rate}."
            )


def replacement_token_ids(vocabulary):
    """Ids a selected token may be randomly replaced with: all but bracketed ones (`[PAD]`, ...)."""
    ids = np.array(
        [i for i, t in enumerate(vocabulary) if not (t.startswith("[") and t.endswith("]"))],
        dtype=np.int64,
    )
    if len(ids) == 0:
        raise ValueError("The vocabulary has no ordinary tokens to use as random replacements.")
    return ids


@keras_bert_export("keras_bert.data.TokenMasker")
class TokenMasker:
    """Applies a `MaskingPolicy` to token-id sequences, with a caller-provided `random.Random`.

    Args:
        vocabulary: list of str tokens (id = position), e.g. from `keras_bert.load_vocabulary`.
        policy: a `MaskingPolicy`. Defaults to BERT's.

    Random replacements are drawn uniformly from the vocabulary's ordinary tokens: never
    `[PAD]`, `[CLS]`, `[SEP]`, `[MASK]`, `[UNK]` or any other bracketed token such as
    `[unused7]` (google-research/bert draws from the whole vocabulary).

    Example:
    >>> import random
    >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "dog", "bark", "##s"]
    >>> masker = keras_bert.data.TokenMasker(vocab, keras_bert.data.MaskingPolicy(
    ...     masked_lm_prob=1.0, mask_token_rate=1.0, random_token_rate=0.0))
    >>> masker([2, 5, 6, 7, 8, 3], random.Random(0))
    ([2, 4, 4, 4, 4, 3], [1, 2, 3, 4], [5, 6, 7, 8])
    """

    def __init__(self, vocabulary, policy=None):
        self.policy = policy or MaskingPolicy()
        self.vocab_size = len(vocabulary)
        index = {token: i for i, token in enumerate(vocabulary)}
        missing = [t for t in ("[CLS]", "[SEP]", "[MASK]", "[PAD]") if t not in index]
        if missing:
            raise ValueError(f"The vocabulary lacks {missing}; masking needs them.")
        self.mask_token_id = index["[MASK]"]
        self.unmaskable = np.zeros(len(vocabulary), bool)
        for token in ("[CLS]", "[SEP]", "[PAD]"):
            self.unmaskable[index[token]] = True
        self.is_continuation = np.array([t.startswith("##") for t in vocabulary])
        self.replacement_ids = replacement_token_ids(vocabulary)

    def __call__(self, token_ids, rng):
        """Masks one sequence.

        Args:
            token_ids: list of int, the packed sequence (`[CLS] a [SEP] b [SEP]`).
            rng: `random.Random`, the only source of randomness (reproducible given its seed).

        Returns:
            `(masked_ids, positions, labels)`: the input ids after replacement (list of int), the
            selected positions in increasing order, and the original ids at those positions.
        """
        policy = self.policy
        whole_words = policy.do_whole_word_mask or policy.max_span_length > 1
        groups = []  # candidate units: single tokens, or the pieces of one word
        for position, token in enumerate(token_ids):
            if self.unmaskable[token]:
                continue
            if whole_words and groups and self.is_continuation[token] and (
                groups[-1][-1] == position - 1
            ):
                groups[-1].append(position)
            else:
                groups.append([position])
        num_candidates = sum(len(g) for g in groups)
        if num_candidates == 0:
            return list(token_ids), [], []
        expected = num_candidates * policy.masked_lm_prob
        num_to_predict = math.floor(expected) + (rng.random() < expected - math.floor(expected))
        num_to_predict = min(policy.max_predictions_per_seq, max(1, num_to_predict))

        if policy.max_span_length > 1:
            groups = self._spans(groups, num_to_predict, rng)
        else:
            rng.shuffle(groups)
        selected = []
        for group in groups:
            if len(selected) >= num_to_predict:
                break
            # A word that would overshoot the budget is skipped whole rather than split.
            if len(selected) + len(group) > num_to_predict:
                continue
            selected.extend(group)
        selected.sort()

        masked = list(token_ids)
        for position in selected:
            draw = rng.random()
            if draw < policy.mask_token_rate:
                masked[position] = self.mask_token_id
            elif draw < policy.mask_token_rate + policy.random_token_rate:
                masked[position] = int(
                    self.replacement_ids[rng.randrange(len(self.replacement_ids))]
                )
            # else: keep the original token, so the model cannot assume observed tokens are right.
        return masked, selected, [int(token_ids[p]) for p in selected]

    def _spans(self, words, budget, rng):
        """Runs of consecutive words (no gap, e.g. no [SEP], inside a run) in the order drawn,
        as SpanBERT: geometric length, random start, until `budget` tokens are covered."""
        policy = self.policy
        taken = [False] * len(words)
        spans, covered = [], 0
        for _ in range(10 * len(words)):  # bounded: spans that do not fit are drawn again
            if covered >= budget:
                break
            length = 1
            while length < policy.max_span_length and rng.random() >= policy.span_length_p:
                length += 1
            start = rng.randrange(len(words))
            run = []  # word indices
            for i in range(start, min(start + length, len(words))):
                if taken[i] or (run and words[i][0] != words[run[-1]][-1] + 1):
                    break
                run.append(i)
            span = [position for i in run for position in words[i]]
            if not span or covered + len(span) > budget:  # would overshoot: draw again
                continue
            for i in run:
                taken[i] = True
            spans.append(span)
            covered += len(span)
        return spans
