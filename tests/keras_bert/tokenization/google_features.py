"""google-research/bert's input packing semantics (`run_classifier.py`), written out plainly as a test oracle."""

CLS, SEP, PAD = 101, 102, 0


def truncate_seq_pair(tokens_a, tokens_b, max_length):
    """google's `_truncate_seq_pair`, on copies: drop the longer segment's last token (B on ties)."""
    tokens_a, tokens_b = list(tokens_a), list(tokens_b)
    while len(tokens_a) + len(tokens_b) > max_length:
        if len(tokens_a) > len(tokens_b):
            tokens_a.pop()
        else:
            tokens_b.pop()
    return tokens_a, tokens_b


def google_layout(tokens_a, tokens_b, sequence_length):
    """`convert_single_example`'s (input_ids, segment_ids, input_mask) for ids without specials."""
    if tokens_b is None:
        tokens_a = tokens_a[: sequence_length - 2]
        tokens, segments = [CLS] + tokens_a + [SEP], [0] * (len(tokens_a) + 2)
    else:
        tokens_a, tokens_b = truncate_seq_pair(tokens_a, tokens_b, sequence_length - 3)
        tokens = [CLS] + tokens_a + [SEP] + tokens_b + [SEP]
        segments = [0] * (len(tokens_a) + 2) + [1] * (len(tokens_b) + 1)
    padding = sequence_length - len(tokens)
    return tokens + [PAD] * padding, segments + [0] * padding, [1] * len(tokens) + [0] * padding
