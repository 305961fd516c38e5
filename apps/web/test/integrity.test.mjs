// The model's bytes are checked against apps/models/SHA256SUMS (src/model.js verifyModelBytes).
// Oracle: the manifest on disk, written by the export's Python (hashlib) and checked in CI by
// coreutils' sha256sum; here Node's Web Crypto must agree with it, and refuse a flipped byte.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ModelError, parseManifest, sha256Hex, verifyModelBytes } from "../src/model.js";

const MODELS = new URL("../../models/", import.meta.url);
const MANIFEST = readFileSync(new URL("SHA256SUMS", MODELS), "utf8");

/** A fetch that serves apps/models/ from disk, and 404 for anything else. */
function diskFetch(manifest = MANIFEST) {
  return async (url) => {
    if (new URL(url).pathname === "/models/SHA256SUMS" && manifest !== null) {
      return { ok: true, text: async () => manifest };
    }
    return { ok: false, status: 404, text: async () => "" };
  };
}

test("the shipped model's bytes match the shipped manifest", async () => {
  const bytes = readFileSync(new URL("squad_minilm_int8.tflite", MODELS));
  assert.equal(await sha256Hex(bytes), parseManifest(MANIFEST).get("squad_minilm_int8.tflite"));
  assert.equal(await verifyModelBytes(bytes, "/models/squad_minilm_int8.tflite", diskFetch()), true);
});

test("one flipped byte in the middle of the weights is refused as corrupt", async () => {
  const bytes = new Uint8Array(readFileSync(new URL("squad_minilm_int8.tflite", MODELS)));
  bytes[bytes.length >> 1] ^= 1;
  await assert.rejects(
    verifyModelBytes(bytes, "/models/squad_minilm_int8.tflite", diskFetch()),
    (e) => e instanceof ModelError && e.kind === "corrupt" && /is corrupted: its SHA-256/.test(e.message),
  );
});

test("no manifest, or a file it does not list, is not checked", async () => {
  const bytes = new Uint8Array([1, 2, 3]);
  assert.equal(await verifyModelBytes(bytes, "/models/squad_minilm_int8.tflite", diskFetch(null)), false);
  assert.equal(await verifyModelBytes(bytes, "/models/other.tflite", diskFetch()), false);
});

test("both sha256sum line forms are read, other lines ignored", () => {
  const hex = "ab".repeat(32);
  const entries = parseManifest(`${hex}  a.tflite\n${hex.toUpperCase()} *b c.txt\r\nnot a line\n`);
  assert.deepEqual([...entries], [["a.tflite", hex], ["b c.txt", hex]]);
});
