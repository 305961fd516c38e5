// The JS tokenizer reproduces the Python ReferenceTokenizer's golden tokens and ids exactly.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BertTokenizer, basicTokenize } from "../src/qa/index.js";
import { loadTokenizer, readFixture, readRepoText } from "./helpers.mjs";

const golden = readFixture("tokenizer_golden.json");

test("tokenizer fixture uses the shipped vocabulary, lower-cased", () => {
  assert.equal(golden.vocab, "apps/models/vocab.txt");
  assert.equal(golden.do_lower_case, true);
  assert.ok(golden.cases.length > 0);
});

for (const [i, testCase] of golden.cases.entries()) {
  test(`golden tokenizer case ${i}: ${JSON.stringify(testCase.text).slice(0, 50)}`, () => {
    const tokenizer = loadTokenizer();
    const tokens = tokenizer.tokenize(testCase.text);
    assert.deepEqual(tokens, testCase.tokens);
    assert.deepEqual(tokenizer.convertTokensToIds(tokens), testCase.ids);
  });
}

test("the vocabulary loads with ids = line numbers", () => {
  const tokenizer = loadTokenizer();
  assert.equal(tokenizer.vocabulary.length, 30522);
  assert.deepEqual(tokenizer.convertTokensToIds(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]),
    [0, 100, 101, 102, 103]);
  assert.deepEqual(tokenizer.convertTokensToIds(["not-a-token"]), [100]);
});

test("google's docstring example: unwanted, running", () => {
  const vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##want", "##ed", ",",
    "runn", "##ing"];
  const tokenizer = new BertTokenizer(vocab);
  assert.deepEqual(tokenizer.tokenize("UNwant\u00E9d,running"),
    ["un", "##want", "##ed", ",", "runn", "##ing"]);
  assert.deepEqual(tokenizer.wordpiece("unwantedx"), ["[UNK]"]);
});

test("fromVocabText accepts CRLF line ends and a missing final newline", () => {
  const text = "[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n[MASK]\r\nhi";
  const tokenizer = BertTokenizer.fromVocabText(text);
  assert.deepEqual(tokenizer.convertTokensToIds(["hi", "[MASK]"]), [5, 4]);
});

test("a vocabulary without the special tokens is refused with a clear message", () => {
  assert.throws(() => new BertTokenizer(["a", "b"]), /missing the BERT special token/);
});

test("words over 200 code points are [UNK]; an astral character counts once", () => {
  const tokenizer = loadTokenizer();
  assert.deepEqual(tokenizer.tokenize("a".repeat(201)), ["[UNK]"]);
  // 200 code points but 399 UTF-16 units: still WordPiece-tokenized, not [UNK] for length.
  const word = "a" + "\u{1D400}".repeat(199);
  assert.equal(new BertTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a",
    "##\u{1D400}"]).wordpiece(word).length, 200);
});

test("Greek final sigma is chosen from the whole word, as Python's str.lower()", () => {
  assert.deepEqual(basicTokenize("ΟΔΥΣΣΕΥΣ ΣΑΣ. Σ"), ["οδυσσευς", "σας", ".", "σ"]);
});

test("emoji, CJK and right-to-left text tokenize as Python does (checked against it)", () => {
  const tokenizer = loadTokenizer();
  const vocabLines = readRepoText("apps/models/vocab.txt").split("\n");
  const expected = [
    ["👨‍👩‍👧‍👦 family 🇨🇭", ["[UNK]", "family", "[UNK]"]],
    ["北京是中国的首都。", ["北", "京", "[UNK]", "中", "国", "的", "[UNK]", "都", "。"]],
    ["שָׁלוֹם עֲלֵיכֶם", ["ש", "##ל", "##ו", "##ם", "ע", "##ל", "##י", "##כ", "##ם"]],
    ["السَّلَامُ عَلَيْكُمْ", ["ا", "##ل", "##س", "##ل", "##ا", "##م", "ع", "##ل", "##ي", "##ك", "##م"]],
    ["\u202Bmixed \u05D0 direction\u202C", ["mixed", "א", "direction"]],
    ["\uD800 lone surrogate", ["[UNK]", "lone", "sur", "##rogate"]],
  ];
  for (const [text, tokens] of expected) {
    assert.deepEqual(tokenizer.tokenize(text), tokens, text);
    // Each id is the token's line in vocab.txt (0-based).
    assert.deepEqual(tokenizer.convertTokensToIds(tokens), tokens.map((t) => vocabLines.indexOf(t)));
  }
  assert.deepEqual(basicTokenize("שָׁלוֹם"), ["שלום"]); // the niqqud are Mn: stripped
});
