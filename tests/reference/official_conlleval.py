"""The CoNLL shared tasks' `conlleval` (Perl, 2004 version) counting, written out from its
published rules as a test oracle for IOB tags: `startOfChunk` / `endOfChunk`, the `inCorrect`
state machine over one token stream, sentence boundaries as ("-X-", "O", "O") lines. With
`iobes=True` the chunk rules are those of its widely used Python port (conlleval.py), which adds
single-token `S-` chunks and closes every chunk after an `E-`; on IOB tags the two agree. No code
shared with `keras_bert.metrics`."""


def _split(tag):
    if "-" in tag:
        prefix, _, kind = tag.partition("-")
        return prefix, kind
    return tag, ""


def _end_of_chunk(prev_tag, tag, prev_type, kind):
    end = False
    if prev_tag == "B" and tag in ("B", "O"):
        end = True
    if prev_tag == "I" and tag in ("B", "O"):
        end = True
    if prev_tag == "E" and tag in ("E", "I", "O"):
        end = True
    if prev_tag not in ("O", ".") and prev_type != kind:
        end = True
    if prev_tag in ("]", "["):
        end = True
    return end


def _start_of_chunk(prev_tag, tag, prev_type, kind):
    start = False
    if tag == "B" and prev_tag in ("B", "I", "O"):
        start = True
    if tag == "I" and prev_tag == "O":
        start = True
    if prev_tag == "E" and tag in ("E", "I"):
        start = True
    if prev_tag == "O" and tag == "E":
        start = True
    if tag not in ("O", ".") and prev_type != kind:
        start = True
    if tag in ("[", "]"):
        start = True
    return start


def _end_of_chunk_iobes(prev_tag, tag, prev_type, kind):
    end = False
    if prev_tag in ("E", "S"):
        end = True
    if prev_tag in ("B", "I") and tag in ("B", "S", "O"):
        end = True
    if prev_tag not in ("O", ".") and prev_type != kind:
        end = True
    return end


def _start_of_chunk_iobes(prev_tag, tag, prev_type, kind):
    start = False
    if tag in ("B", "S"):
        start = True
    if prev_tag in ("E", "S", "O") and tag in ("E", "I"):
        start = True
    if tag not in ("O", ".") and prev_type != kind:
        start = True
    return start


def _tally(gold_sentences, predicted_sentences, iobes=False):
    """The script's counters: per-type `correctChunk`, `foundCorrect`, `foundGuessed` (dicts),
    `correctTags` and `tokenCounter`."""
    lines = []
    for gold, pred in zip(gold_sentences, predicted_sentences):
        lines += [(g, p) for g, p in zip(gold, pred)]
        lines.append(None)  # the blank line between sentences: ("O", "O"), not a token
    end_of_chunk = _end_of_chunk_iobes if iobes else _end_of_chunk
    start_of_chunk = _start_of_chunk_iobes if iobes else _start_of_chunk
    correct_chunk, found_correct, found_guessed = {}, {}, {}
    correct_tags = token_counter = 0
    in_correct = False
    last_correct, last_correct_type, last_guessed, last_guessed_type = "O", "", "O", ""
    for line in lines:
        g, p = ("O", "O") if line is None else line
        correct, correct_type = _split(g)
        guessed, guessed_type = _split(p)
        correct_ends = end_of_chunk(last_correct, correct, last_correct_type, correct_type)
        guessed_ends = end_of_chunk(last_guessed, guessed, last_guessed_type, guessed_type)
        if in_correct:
            if correct_ends and guessed_ends and last_guessed_type == last_correct_type:
                in_correct = False
                correct_chunk[last_correct_type] = correct_chunk.get(last_correct_type, 0) + 1
            elif correct_ends != guessed_ends or guessed_type != correct_type:
                in_correct = False
        correct_starts = start_of_chunk(last_correct, correct, last_correct_type, correct_type)
        guessed_starts = start_of_chunk(last_guessed, guessed, last_guessed_type, guessed_type)
        if correct_starts and guessed_starts and guessed_type == correct_type:
            in_correct = True
        if correct_starts:
            found_correct[correct_type] = found_correct.get(correct_type, 0) + 1
        if guessed_starts:
            found_guessed[guessed_type] = found_guessed.get(guessed_type, 0) + 1
        if line is not None:
            if correct == guessed and guessed_type == correct_type:
                correct_tags += 1
            token_counter += 1
        last_correct, last_correct_type = correct, correct_type
        last_guessed, last_guessed_type = guessed, guessed_type
    if in_correct:
        correct_chunk[last_correct_type] = correct_chunk.get(last_correct_type, 0) + 1
    return correct_chunk, found_correct, found_guessed, correct_tags, token_counter


def counts(gold_sentences, predicted_sentences, iobes=False):
    """`(correct_chunks, found_gold, found_guessed)` as conlleval counts them."""
    correct, found_correct, found_guessed, _, _ = _tally(gold_sentences, predicted_sentences,
                                                         iobes)
    return sum(correct.values()), sum(found_correct.values()), sum(found_guessed.values())


def _scores(correct, guessed, gold):
    precision = 100 * correct / guessed if guessed > 0 else 0
    recall = 100 * correct / gold if gold > 0 else 0
    fb1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0
    return precision, recall, fb1


def report(gold_sentences, predicted_sentences, iobes=False):
    """What the script prints (its default output, `-r` off), line by line."""
    correct, found_correct, found_guessed, correct_tags, tokens = _tally(
        gold_sentences, predicted_sentences, iobes)
    total_correct, total_gold, total_guessed = (
        sum(correct.values()), sum(found_correct.values()), sum(found_guessed.values()))
    lines = [f"processed {tokens} tokens with {total_gold} phrases; "
             f"found: {total_guessed} phrases; correct: {total_correct}."]
    if tokens > 0:
        precision, recall, fb1 = _scores(total_correct, total_guessed, total_gold)
        lines.append("accuracy: %6.2f%%; precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f"
                     % (100 * correct_tags / tokens, precision, recall, fb1))
    for kind in sorted(set(found_correct) | set(found_guessed)):
        precision, recall, fb1 = _scores(correct.get(kind, 0), found_guessed.get(kind, 0),
                                         found_correct.get(kind, 0))
        lines.append("%17s: precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f  %d"
                     % (kind, precision, recall, fb1, found_guessed.get(kind, 0)))
    return lines
