"""The CoNLL shared tasks' `conlleval` (Perl, 2004 version) counting, written out from its
published rules as a test oracle for IOB tags: `startOfChunk` / `endOfChunk`, the `inCorrect`
state machine over one token stream, sentence boundaries as ("-X-", "O", "O") lines. No code
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


def counts(gold_sentences, predicted_sentences):
    """`(correct_chunks, found_gold, found_guessed)` as conlleval counts them."""
    lines = []
    for gold, pred in zip(gold_sentences, predicted_sentences):
        lines += [(g, p) for g, p in zip(gold, pred)]
        lines.append(("O", "O"))  # the blank line between sentences
    correct_chunk = found_correct = found_guessed = 0
    in_correct = False
    last_correct, last_correct_type, last_guessed, last_guessed_type = "O", "", "O", ""
    for g, p in lines:
        correct, correct_type = _split(g)
        guessed, guessed_type = _split(p)
        correct_ends = _end_of_chunk(last_correct, correct, last_correct_type, correct_type)
        guessed_ends = _end_of_chunk(last_guessed, guessed, last_guessed_type, guessed_type)
        if in_correct:
            if correct_ends and guessed_ends and last_guessed_type == last_correct_type:
                in_correct = False
                correct_chunk += 1
            elif correct_ends != guessed_ends or guessed_type != correct_type:
                in_correct = False
        correct_starts = _start_of_chunk(last_correct, correct, last_correct_type, correct_type)
        guessed_starts = _start_of_chunk(last_guessed, guessed, last_guessed_type, guessed_type)
        if correct_starts and guessed_starts and guessed_type == correct_type:
            in_correct = True
        found_correct += correct_starts
        found_guessed += guessed_starts
        last_correct, last_correct_type = correct, correct_type
        last_guessed, last_guessed_type = guessed, guessed_type
    if in_correct:
        correct_chunk += 1
    return correct_chunk, found_correct, found_guessed
