"""google-research/bert's SQuAD windowing (`run_squad.py`), written out plainly as a test oracle.

Written here from the published algorithm (`read_squad_examples`, `convert_examples_to_features`,
`_improve_answer_span`, `_check_is_max_context`), step for step and without sharing code with
`keras_bert.data`: whitespace words, WordPiece per word, document spans `doc_stride` apart,
`[CLS] question [SEP] span [SEP]`, the max-context rule, and answer positions (0 when the answer
is not inside the span). It reads the SQuAD JSON itself.
"""

import collections

Example = collections.namedtuple(
    "Example", ["qas_id", "question", "doc_tokens", "answer_text", "start_word", "end_word"])
Window = collections.namedtuple(
    "Window", ["qas_id", "tokens", "segment_ids", "token_to_orig_map", "token_is_max_context",
               "start_position", "end_position"])


def _is_whitespace(c):
    return c in (" ", "\t", "\r", "\n") or ord(c) == 0x202F


def read_examples(dataset, is_training):
    """`(examples, skipped)`: google's examples; training questions whose answer text is not
    found at its offset are skipped, as google does, and counted."""
    examples, skipped = [], 0
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            text = paragraph["context"]
            doc_tokens, char_to_word, previous_is_space = [], [], True
            for c in text:
                if _is_whitespace(c):
                    previous_is_space = True
                else:
                    if previous_is_space:
                        doc_tokens.append(c)
                    else:
                        doc_tokens[-1] += c
                    previous_is_space = False
                char_to_word.append(len(doc_tokens) - 1)
            for qa in paragraph["qas"]:
                answer_text, start_word, end_word = "", None, None
                if is_training:
                    answer = qa["answers"][0]
                    answer_text = answer["text"]
                    offset = answer["answer_start"]
                    start_word = char_to_word[offset]
                    end_word = char_to_word[offset + len(answer_text) - 1]
                    actual = " ".join(doc_tokens[start_word:end_word + 1])
                    cleaned = " ".join(answer_text.strip().split())
                    if actual.find(cleaned) == -1:
                        skipped += 1
                        continue
                examples.append(Example(qa["id"], qa["question"], doc_tokens, answer_text,
                                        start_word, end_word))
    return examples, skipped


def _improve_answer_span(doc_tokens, start, end, tokenizer, answer_text):
    wanted = " ".join(tokenizer.tokenize(answer_text))
    for new_start in range(start, end + 1):
        for new_end in range(end, new_start - 1, -1):
            if " ".join(doc_tokens[new_start:new_end + 1]) == wanted:
                return new_start, new_end
    return start, end


def _is_max_context(spans, span_index, position):
    best_score, best_index = None, None
    for index, (start, length) in enumerate(spans):
        end = start + length - 1
        if position < start or position > end:
            continue
        score = min(position - start, end - position) + 0.01 * length
        if best_score is None or score > best_score:
            best_score, best_index = score, index
    return span_index == best_index


def windows(example, tokenizer, max_seq_length, doc_stride, max_query_length, is_training):
    """google's features for one example, as `Window`s (tokens unpadded)."""
    query = tokenizer.tokenize(example.question)[:max_query_length]
    token_to_word, word_to_token, doc = [], [], []
    for i, word in enumerate(example.doc_tokens):
        word_to_token.append(len(doc))
        for piece in tokenizer.tokenize(word):
            token_to_word.append(i)
            doc.append(piece)
    if is_training:
        start = word_to_token[example.start_word]
        if example.end_word < len(example.doc_tokens) - 1:
            end = word_to_token[example.end_word + 1] - 1
        else:
            end = len(doc) - 1
        start, end = _improve_answer_span(doc, start, end, tokenizer, example.answer_text)
    max_tokens_for_doc = max_seq_length - len(query) - 3
    spans, offset = [], 0
    while offset < len(doc):
        length = min(len(doc) - offset, max_tokens_for_doc)
        spans.append((offset, length))
        if offset + length == len(doc):
            break
        offset += min(length, doc_stride)
    out = []
    for span_index, (span_start, span_length) in enumerate(spans):
        tokens = ["[CLS]", *query, "[SEP]"]
        segment_ids = [0] * len(tokens)
        to_orig, max_context = {}, {}
        for i in range(span_length):
            position = span_start + i
            to_orig[len(tokens)] = token_to_word[position]
            max_context[len(tokens)] = _is_max_context(spans, span_index, position)
            tokens.append(doc[position])
            segment_ids.append(1)
        tokens.append("[SEP]")
        segment_ids.append(1)
        start_position = end_position = None
        if is_training:
            span_end = span_start + span_length - 1
            if start >= span_start and end <= span_end:
                start_position = start - span_start + len(query) + 2
                end_position = end - span_start + len(query) + 2
            else:
                start_position = end_position = 0
        out.append(Window(example.qas_id, tokens, segment_ids, to_orig, max_context,
                          start_position, end_position))
    return out


def _best_indexes(logits, n_best_size):
    return [i for i, _ in sorted(enumerate(logits), key=lambda x: x[1], reverse=True)[:n_best_size]]


def _strip_spaces(text):
    chars, ns_to_s = [], {}
    for i, c in enumerate(text):
        if c == " ":
            continue
        ns_to_s[len(chars)] = i
        chars.append(c)
    return "".join(chars), ns_to_s


def final_text(pred_text, orig_text, basic_tokenize):
    """google's `get_final_text`: project the WordPiece answer back onto the original words."""
    tok_text = " ".join(basic_tokenize(orig_text))
    start = tok_text.find(pred_text)
    if start == -1:
        return orig_text
    end = start + len(pred_text) - 1
    orig_ns, orig_ns_to_s = _strip_spaces(orig_text)
    tok_ns, tok_ns_to_s = _strip_spaces(tok_text)
    if len(orig_ns) != len(tok_ns):
        return orig_text
    tok_s_to_ns = {s: ns for ns, s in tok_ns_to_s.items()}
    orig_start = orig_ns_to_s.get(tok_s_to_ns[start]) if start in tok_s_to_ns else None
    if orig_start is None:
        return orig_text
    orig_end = orig_ns_to_s.get(tok_s_to_ns[end]) if end in tok_s_to_ns else None
    if orig_end is None:
        return orig_text
    return orig_text[orig_start:orig_end + 1]


def predictions(examples, example_windows, start_logits, end_logits, basic_tokenize,
                n_best_size=20, max_answer_length=30):
    """google's `write_predictions` for SQuAD v1.1: `{qas_id: best answer text}`, None where no
    window has a valid span.

    `example_windows[k]` lists `(window, start_logits, end_logits)` index positions: the windows
    of `examples[k]` as indices into the logit arrays.
    """
    out = {}
    for example, indices in zip(examples, example_windows):
        prelim = []
        for index, window in indices:
            starts = _best_indexes(start_logits[index], n_best_size)
            ends = _best_indexes(end_logits[index], n_best_size)
            for s in starts:
                for e in ends:
                    if s >= len(window.tokens) or e >= len(window.tokens):
                        continue
                    if s not in window.token_to_orig_map or e not in window.token_to_orig_map:
                        continue
                    if not window.token_is_max_context.get(s, False):
                        continue
                    if e < s or e - s + 1 > max_answer_length:
                        continue
                    prelim.append((start_logits[index][s] + end_logits[index][e], index,
                                   window, s, e))
        prelim.sort(key=lambda p: p[0], reverse=True)
        seen, best = set(), None
        for _, _, window, s, e in prelim:
            pieces = " ".join(window.tokens[s:e + 1]).replace(" ##", "").replace("##", "")
            pieces = " ".join(pieces.strip().split())
            words = example.doc_tokens[window.token_to_orig_map[s]:window.token_to_orig_map[e] + 1]
            text = final_text(pieces, " ".join(words), basic_tokenize)
            if text in seen:
                continue
            seen.add(text)
            best = text
            break  # the first kept one is the prediction
        out[example.qas_id] = best  # None: no valid span (google writes the placeholder "empty")
    return out
