// The thread count the app starts with (src/model.js defaultThreadCount).
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultThreadCount, THREAD_CHOICES } from "../src/model.js";

test("a page without the threaded runtime starts with one thread, whatever the cores", () => {
  for (const cores of [1, 2, 8, undefined]) {
    assert.equal(defaultThreadCount({ threaded: false, hardwareConcurrency: cores }), 1);
  }
});

test("an isolated page starts with the largest offered count the cores allow", () => {
  const cases = [[1, 1], [2, 2], [3, 2], [4, 4], [6, 4], [64, 4], [0, 1], [undefined, 1], ["x", 1]];
  for (const [cores, want] of cases) {
    assert.equal(defaultThreadCount({ threaded: true, hardwareConcurrency: cores }), want, `cores ${cores}`);
  }
  // Always one of the selector's options.
  for (let cores = 1; cores <= 16; cores++) {
    assert.ok(THREAD_CHOICES.includes(defaultThreadCount({ threaded: true, hardwareConcurrency: cores })));
  }
});

test("the counts offered are the page's thread selector's options", async () => {
  const { readFileSync } = await import("node:fs");
  const html = readFileSync(new URL("../index.html", import.meta.url), "utf8");
  const select = html.slice(html.indexOf('<select id="threads"'), html.indexOf("</select>"));
  const options = [...select.matchAll(/<option value="(\d+)"/g)].map((m) => Number(m[1]));
  assert.deepEqual(options, THREAD_CHOICES);
});
