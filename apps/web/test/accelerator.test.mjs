// WebGPU detection and the accelerator selector (src/model.js).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ACCELERATOR_CHOICES, webGpuUnavailableReason } from "../src/model.js";

test("no navigator.gpu, no adapter or a failing request each give a reason", async () => {
  assert.match(await webGpuUnavailableReason({}), /navigator\.gpu is missing/);
  assert.match(await webGpuUnavailableReason(undefined), /navigator\.gpu is missing/);
  const none = { gpu: { requestAdapter: async () => null } };
  assert.match(await webGpuUnavailableReason(none), /no WebGPU adapter/);
  const failing = { gpu: { requestAdapter: async () => { throw new Error("device lost"); } } };
  assert.match(await webGpuUnavailableReason(failing), /failed: device lost/);
});

test("an adapter means WebGPU can be tried", async () => {
  const ok = { gpu: { requestAdapter: async () => ({ info: { vendor: "test" } }) } };
  assert.equal(await webGpuUnavailableReason(ok), null);
});

test("the accelerators offered are the page's backend selector's options", () => {
  const html = readFileSync(new URL("../index.html", import.meta.url), "utf8");
  const start = html.indexOf('<select id="accelerator"');
  assert.ok(start >= 0, "index.html has no accelerator selector");
  const select = html.slice(start, html.indexOf("</select>", start));
  const options = [...select.matchAll(/<option value="([a-z]+)"/g)].map((m) => m[1]);
  assert.deepEqual(options, ACCELERATOR_CHOICES);
});
