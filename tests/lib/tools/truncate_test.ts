import assert from "node:assert/strict";
import { formatBytes, truncateLine, truncateText } from "../../../lib/tools/truncate.ts";

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

Deno.test("truncate: text within the limits is returned whole", () => {
  const result = truncateText("a\nb\n", { maxLines: 2 });
  assert.deepEqual(result, {
    text: "a\nb",
    truncated: false,
    totalLines: 2,
    firstLine: 1,
    lastLine: 2,
    partialLine: false,
  });
});

Deno.test("truncate: head keeps the first lines, tail the last", () => {
  const head = truncateText(lines(10), { maxLines: 3 });
  assert.equal(head.text, "line 1\nline 2\nline 3");
  assert.deepEqual([head.truncated, head.firstLine, head.lastLine, head.totalLines], [
    true,
    1,
    3,
    10,
  ]);
  const tail = truncateText(lines(10), { maxLines: 3, keep: "tail" });
  assert.equal(tail.text, "line 8\nline 9\nline 10");
  assert.deepEqual([tail.truncated, tail.firstLine, tail.lastLine], [true, 8, 10]);
});

Deno.test("truncate: the byte budget counts UTF-8 bytes and keeps whole lines", () => {
  // "é" is 2 bytes: each line is 4 bytes plus a newline.
  const text = ["éé", "éé", "éé"].join("\n");
  const result = truncateText(text, { maxBytes: 9 });
  assert.equal(result.text, "éé\néé");
  assert.equal(result.lastLine, 2);
  assert.equal(new TextEncoder().encode(result.text).length, 9);
});

Deno.test("truncate: one line longer than the budget is cut at a character boundary", () => {
  const line = "ab€".repeat(10); // € is 3 bytes
  const head = truncateText(line, { maxBytes: 7 });
  assert.equal(head.text, "ab€ab");
  assert.ok(head.partialLine && head.truncated);
  const tail = truncateText(`first\n${line}`, { maxBytes: 7, keep: "tail" });
  assert.equal(tail.text, "ab€"); // the next character back, "€", would need 3 more bytes
  assert.deepEqual([tail.firstLine, tail.lastLine, tail.partialLine], [2, 2, true]);
});

Deno.test("truncate: empty text keeps nothing and is not truncated", () => {
  const result = truncateText("");
  assert.deepEqual([result.text, result.truncated, result.totalLines, result.lastLine], [
    "",
    false,
    0,
    0,
  ]);
});

Deno.test("truncate: lines and sizes for notes", () => {
  assert.equal(truncateLine("short", 10), "short");
  assert.equal(truncateLine("x".repeat(12), 10), `${"x".repeat(10)}… [line truncated]`);
  assert.equal(formatBytes(100), "100 B");
  assert.equal(formatBytes(1536), "1.5 KB");
  assert.equal(formatBytes(3 * 1024 * 1024), "3.0 MB");
  assert.equal(formatBytes(2 * 1024 ** 3), "2.0 GB");
});

Deno.test("truncate: a cut line never ends in half a surrogate pair", () => {
  const cut = truncateLine("ab😀cd", 3);
  assert.equal(cut, "ab… [line truncated]");
  assert.ok(cut.isWellFormed());
  assert.equal(truncateLine("ab😀cd", 4), "ab😀… [line truncated]");
});
