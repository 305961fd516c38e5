// Shared loading of the golden fixtures and the vocabulary (paths relative to the repo root).
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

let tokenizer = null;

/** The tokenizer of the shipped vocabulary (loaded once). */
export function loadTokenizer() {
  tokenizer ??= BertTokenizer.fromVocabText(readRepoText("apps/models/vocab.txt"));
  return tokenizer;
}
