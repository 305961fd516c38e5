// Shared loading of the golden fixtures and the vocabulary (paths relative to the repo root).
// QA_FIXTURES_DIR=<folder> reads the fixtures from another folder (tests/apps/ uses it to show
// that fixtures remade from a broken model fail here).
import { readFileSync } from "node:fs";
import { BertTokenizer } from "../src/qa/index.js";

const ROOT = new URL("../../../", import.meta.url);

/** Reads a file under the repository root as UTF-8 text. */
export function readRepoText(path) {
  return readFileSync(new URL(path, ROOT), "utf8");
}

/** Parses a JSON file under the repository root. */
export function readRepoJson(path) {
  return JSON.parse(readRepoText(path));
}

/** Parses a fixture (`qa_golden.json`, ...) from apps/fixtures or $QA_FIXTURES_DIR. */
export function readFixture(name) {
  const dir = process.env.QA_FIXTURES_DIR;
  if (dir) return JSON.parse(readFileSync(`${dir}/${name}`, "utf8"));
  return readRepoJson(`apps/fixtures/${name}`);
}

let tokenizer = null;

/** The tokenizer of the shipped vocabulary (loaded once). */
export function loadTokenizer() {
  tokenizer ??= BertTokenizer.fromVocabText(readRepoText("apps/models/vocab.txt"));
  return tokenizer;
}
