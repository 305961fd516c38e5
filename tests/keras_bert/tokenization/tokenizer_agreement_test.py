"""Acceptance test: reference, in-graph and Hugging Face BERT tokenizers give identical ids.

Compared on every SQuAD v1.1 dev context and question (uncased vocab), a sample of them with the
cased vocab, and the hard cases. Hugging Face's tokenizer (transformers' `BertTokenizerFast`, the
Rust `tokenizers` WordPiece) is an independent implementation; where it genuinely differs from
google-research/bert, the case stays in and the difference is asserted exactly. The counts and the
known differences are printed; with KERAS_BERT_UPDATE_DOCS=1 they are also written to
docs/tokenizer_agreement.md (normal and CI runs leave the checkout untouched).
"""

import datetime
import os
import pathlib
import platform
import shutil
import sys

import pytest
import tensorflow as tf
import tensorflow_text as tf_text
import transformers

from keras_bert.tokenization.bert_tokenizer import BertTokenizer
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.keras_bert.tokenization.hard_cases import HARD_CASES
from tests.keras_bert.tokenization.hard_cases import squad_dev_texts
from tests.keras_bert.tokenization.hard_cases import vocab_path

DOC = pathlib.Path(__file__).resolve().parents[3] / "docs" / "tokenizer_agreement.md"
COMMAND = (
    "KERAS_BERT_UPDATE_DOCS=1 .venv/bin/python -m pytest "
    "tests/keras_bert/tokenization/tokenizer_agreement_test.py -q -s"
)
CASED_SAMPLE_EVERY = 4  # Every 4th SQuAD string for the cased vocabulary.
BATCH = 1024

# Hard cases on which HF's tokenizer genuinely differs from google-research/bert:
# (casing, text) -> (google's tokens, HF's tokens, why).
SPECIAL = "[MASK] [CLS] [SEP] [PAD] [UNK] [unused0] [mask]"
PRIVATE_USE = "\ue000private\U000f0000use"
HF_DIFFERENCES = {
    ("uncased", SPECIAL): (
        "[ mask ] [ cl ##s ] [ sep ] [ pad ] [ un ##k ] [ unused ##0 ] [ mask ]",
        "[MASK] [CLS] [SEP] [PAD] [UNK] [ unused ##0 ] [ mask ]",
        "HF matches its special tokens in raw text before normalizing; google splits them like "
        "any other text (so a user's literal \"[SEP]\" cannot fake a separator).",
    ),
    ("cased", SPECIAL): (
        "[ MA ##S ##K ] [ C ##LS ] [ SE ##P ] [ PA ##D ] [ UN ##K ] [ unused ##0 ] [ mask ]",
        "[MASK] [CLS] [SEP] [PAD] [UNK] [ unused ##0 ] [ mask ]",
        "Same as uncased.",
    ),
    ("uncased", "ΟΔΟΣ ΟΔΟΣ. ΣΑΣ Σ ʼΣ"): (
        "ο ##δ ##ος ο ##δ ##ος . σ ##α ##ς σ ʼ ##σ",
        "ο ##δ ##ο ##σ ο ##δ ##ο ##σ . σ ##α ##σ σ ʼ ##σ",
        "google lower-cases words with Python's str.lower, which turns a word-final capital sigma "
        "into final sigma (ς); HF lower-cases character by character (always σ).",
    ),
    ("uncased", PRIVATE_USE): (
        "[UNK]",
        "private ##use",
        "google drops only Cc/Cf characters; HF drops every C* category, including private use "
        "(Co).",
    ),
    ("cased", PRIVATE_USE): ("[UNK]", "private ##use", "Same as uncased."),
}


def hf_tokenizer(casing, tmp_dir):
    """transformers' fast BERT tokenizer on google's vocab, with google's word-length limit."""
    # transformers 5.x silently ignores `BertTokenizerFast(vocab_file=...)` (it builds a 5-token
    # vocabulary), so load the folder the way checkpoints are loaded, and check the size.
    folder = pathlib.Path(tmp_dir) / casing
    folder.mkdir()
    shutil.copy(vocab_path(casing), folder / "vocab.txt")
    tokenizer = transformers.BertTokenizerFast.from_pretrained(
        str(folder), do_lower_case=casing == "uncased"
    )
    assert len(tokenizer.get_vocab()) == {"uncased": 30522, "cased": 28996}[casing]
    # HF's WordPiece maps words over 100 characters to [UNK]; google's limit is 200.
    tokenizer.backend_tokenizer.model.max_input_chars_per_word = 200
    assert tokenizer.backend_tokenizer.model.max_input_chars_per_word == 200
    return tokenizer


def encode_all(casing, texts, tmp_dir):
    """Ids from the three tokenizers: (reference, in-graph, HF), each a list of lists."""
    do_lower_case = casing == "uncased"
    reference = ReferenceTokenizer(vocab_path(casing), do_lower_case=do_lower_case)
    in_graph = tf.function(BertTokenizer(vocab_path(casing), do_lower_case=do_lower_case))
    hf = hf_tokenizer(casing, tmp_dir)
    reference_ids = [reference.encode(text) for text in texts]
    graph_ids = []
    for start in range(0, len(texts), BATCH):
        graph_ids.extend(in_graph(tf.constant(texts[start : start + BATCH])).to_list())
    hf_ids = hf(texts, add_special_tokens=False)["input_ids"]
    return reference, reference_ids, graph_ids, hf_ids


@pytest.fixture(scope="module")
def squad():
    return squad_dev_texts()


@pytest.fixture(scope="module")
def report():
    counts = {}
    yield counts
    _write_report(counts)


def test_squad_dev_uncased_all_three_agree(squad, report, tmp_path):
    assert len(squad) == 2067 + 10570
    _, reference_ids, graph_ids, hf_ids = encode_all("uncased", squad, tmp_path)
    graph_diffs = [i for i, (r, g) in enumerate(zip(reference_ids, graph_ids)) if r != g]
    hf_diffs = [i for i, (r, h) in enumerate(zip(reference_ids, hf_ids)) if r != h]
    report["SQuAD v1.1 dev, every context and question, uncased vocab"] = _row(
        len(squad), reference_ids, graph_diffs, hf_diffs
    )
    assert graph_diffs == [], [squad[i][:80] for i in graph_diffs[:5]]
    assert hf_diffs == [], [squad[i][:80] for i in hf_diffs[:5]]
    # Stock tf_text, for the record: why BertTokenizer does its own normalization.
    stock = tf_text.FastBertTokenizer(
        ReferenceTokenizer(vocab_path("uncased")).vocabulary,
        token_out_type=tf.int32,
        lower_case_nfd_strip_accents=True,
        max_bytes_per_word=800,
    )
    stock_ids = stock.tokenize(squad).to_list()
    report["stock_fast_bert_squad_diffs"] = sum(r != s for r, s in zip(reference_ids, stock_ids))


def test_squad_dev_cased_sample_all_three_agree(squad, report, tmp_path):
    sample = squad[::CASED_SAMPLE_EVERY]
    _, reference_ids, graph_ids, hf_ids = encode_all("cased", sample, tmp_path)
    graph_diffs = [i for i, (r, g) in enumerate(zip(reference_ids, graph_ids)) if r != g]
    hf_diffs = [i for i, (r, h) in enumerate(zip(reference_ids, hf_ids)) if r != h]
    report[f"SQuAD v1.1 dev, every {CASED_SAMPLE_EVERY}th string, cased vocab"] = _row(
        len(sample), reference_ids, graph_diffs, hf_diffs
    )
    assert graph_diffs == [], [sample[i][:80] for i in graph_diffs[:5]]
    assert hf_diffs == [], [sample[i][:80] for i in hf_diffs[:5]]


@pytest.mark.parametrize("casing", ["uncased", "cased"])
def test_hard_cases_agree_except_known_hf_differences(casing, report, tmp_path):
    texts = [text for _, text in HARD_CASES]
    reference, reference_ids, graph_ids, hf_ids = encode_all(casing, texts, tmp_path)
    hf_diffs = []
    for (label, text), r, g, h in zip(HARD_CASES, reference_ids, graph_ids, hf_ids):
        assert g == r, f"in-graph != reference on {label}: {text!r}"
        known = HF_DIFFERENCES.get((casing, text))
        if known is None:
            assert h == r, f"HF != reference on {label}: {text!r}"
        else:
            google_tokens, hf_tokens, _ = known
            assert " ".join(reference.convert_ids_to_tokens(r)) == google_tokens, label
            assert " ".join(reference.convert_ids_to_tokens(h)) == hf_tokens, label
            hf_diffs.append(label)
    # Every listed difference must still occur: a fixed HF shows up as a test failure to update.
    assert len(hf_diffs) == sum(1 for key in HF_DIFFERENCES if key[0] == casing)
    report[f"hard cases, {casing} vocab"] = _row(len(texts), reference_ids, [], hf_diffs)


def _row(num_strings, reference_ids, graph_diffs, hf_diffs):
    return {
        "strings": num_strings,
        "tokens": sum(len(ids) for ids in reference_ids),
        "graph_diffs": len(graph_diffs),
        "hf_diffs": len(hf_diffs),
    }


def _write_report(counts):
    """Prints the counts and rewrites docs/tokenizer_agreement.md (when every part ran)."""
    rows = {k: v for k, v in counts.items() if isinstance(v, dict)}
    for name, row in rows.items():
        print(
            f"\n[tokenizer agreement] {name}: {row['strings']:,} strings, {row['tokens']:,} "
            f"tokens; in-graph differs on {row['graph_diffs']}, HF on {row['hf_diffs']}"
        )
    if len(rows) < 4 or os.environ.get("KERAS_BERT_UPDATE_DOCS") != "1":
        return  # Only a full run asked to update the record rewrites it.
    try:
        _write_doc(counts, rows)
    except OSError as error:  # A read-only checkout (e.g. Bazel's sandbox): the print is enough.
        print(f"\n[tokenizer agreement] could not write {DOC}: {error}")


def _write_doc(counts, rows):
    """Renders `_TEMPLATE` into docs/tokenizer_agreement.md."""
    table = "\n".join(
        f"| {name} | {row['strings']:,} | {row['tokens']:,} | {row['graph_diffs']} "
        f"| {row['hf_diffs']} |"
        for name, row in rows.items()
    )
    differences = "\n".join(
        f"| {casing} | `{text!r}` | `{google}` | `{hf}` | {why} |"
        for (casing, text), (google, hf, why) in HF_DIFFERENCES.items()
    )
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(
        _TEMPLATE.format(
            date=datetime.date.today().isoformat(),
            command=COMMAND,
            argv=" ".join(["pytest"] + sys.argv[1:]),
            machine=platform.machine(),
            cpus=os.cpu_count(),
            system=platform.platform(terse=True),
            python=sys.version.split()[0],
            tf=tf.__version__,
            tf_text=tf_text.__version__,
            transformers=transformers.__version__,
            table=table,
            total=sum(row["strings"] for row in rows.values()),
            differences=differences,
            stock=counts.get("stock_fast_bert_squad_diffs", "n/a"),
        ),
        encoding="utf-8",
    )


_TEMPLATE = """# Tokenizer agreement

Written by `tests/keras_bert/tokenization/tokenizer_agreement_test.py` when run with
KERAS_BERT_UPDATE_DOCS=1 (the command below); do not edit by hand.

- Date: {date}
- Command: `{command}` (this run: `{argv}`)
- Machine: {machine}, {cpus} CPU cores ({system})
- Versions: Python {python}, TensorFlow {tf}, tensorflow-text {tf_text}, transformers {transformers}

Three tokenizers, the same vocab.txt (google's bert-base uncased/cased), ids compared string by
string without [CLS]/[SEP]:

- **reference**: `keras_bert.ReferenceTokenizer`, pure Python with google-research/bert
  `tokenization.py` semantics (the oracle);
- **in-graph**: `keras_bert.BertTokenizer`, TensorFlow ops (run under `tf.function`);
- **HF**: transformers `BertTokenizerFast` (Rust `tokenizers`), with its WordPiece
  `max_input_chars_per_word` set from HF's default 100 to google's 200.

| strings compared | strings | reference tokens | in-graph differs | HF differs |
| --- | ---: | ---: | ---: | ---: |
{table}

{total:,} strings in all. The in-graph tokenizer equals the reference on every one.

## Known, genuine differences between HF and google-research/bert

None occurs in SQuAD v1.1 dev. The hard cases keep them and assert each exactly:

| vocab | text | google (reference and in-graph) | HF | why |
| --- | --- | --- | --- | --- |
{differences}

Also: HF's default `max_input_chars_per_word` is 100 (google: 200), set to 200 above; with
transformers 5.x, `BertTokenizerFast(vocab_file=...)` silently ignores the file and builds a
5-token vocabulary, so the test loads the vocab folder with `from_pretrained` and checks the size.

## Why the in-graph tokenizer does its own normalization

tensorflow-text's stock `FastBertTokenizer(lower_case_nfd_strip_accents=True)` differs from the
reference on {stock} of the uncased SQuAD v1.1 dev strings (ICU NFKC folding turns "½" into
"1⁄2"), and on hard cases such as "ß" (folded to "ss") and Greek final sigma. `BertTokenizer`
therefore builds its character tables from Python's `unicodedata` and `str.lower` (the same source
as the reference) and uses tensorflow-text only for WordPiece (`FastWordpieceTokenizer`).
"""
