import assert from "node:assert/strict";
import fc from "fast-check";
import { applyReplacement, editDiff } from "../../../lib/tools/edit_diff.ts";
import { abortAfter } from "../../support/timed_abort.ts";

const never = new AbortController().signal;

function occurrences(content: string, text: string): number[] {
  const found: number[] = [];
  for (let at = content.indexOf(text); at !== -1; at = content.indexOf(text, at + text.length)) {
    found.push(at);
  }
  return found;
}

function lines(text: string): string[] {
  const all = text.split("\n");
  if (all.at(-1) === "") all.pop();
  return all;
}

/**
 * Applies the diff's hunks to `before`, checking each header's numbers and
 * each context and removed line against it; the lines that result.
 */
function applyDiff(before: string, diff: string): string[] {
  const old = lines(before);
  const out: string[] = [];
  const rows = diff === "" ? [] : diff.split("\n");
  let at = 0;
  for (let i = 0; i < rows.length;) {
    const header = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(rows[i]!);
    assert.ok(header, `a hunk header: ${rows[i]}`);
    const [oldStart, oldCount, newStart, newCount] = header.slice(1).map(Number);
    assert.ok(oldStart! - 1 >= at, "hunks in order, apart");
    while (at < oldStart! - 1) out.push(old[at++]!);
    assert.equal(out.length, newStart! - 1, "the new start");
    let [olds, news] = [0, 0];
    for (i++; i < rows.length && !rows[i]!.startsWith("@@"); i++) {
      const [kind, text] = [rows[i]![0], rows[i]!.slice(1)];
      assert.ok(kind === " " || kind === "-" || kind === "+", rows[i]);
      if (kind !== "+") assert.equal(text, old[at++], "a context or removed line");
      if (kind !== "-") out.push(text);
      if (kind !== "+") olds++;
      if (kind !== "-") news++;
    }
    assert.deepEqual([olds, news], [oldCount, newCount], "the header's counts");
  }
  while (at < old.length) out.push(old[at++]!);
  return out;
}

Deno.test("edit diff: applying it to the old text gives the new one, for random replacements", async () => {
  const text = fc.stringMatching(/^[ab\n]{0,40}$/);
  await fc.assert(
    fc.asyncProperty(
      text,
      fc.nat(40),
      fc.nat(6),
      fc.stringMatching(/^[abc\n]{0,8}$/),
      fc.boolean(),
      async (before, start, length, newText, all) => {
        const oldText = before.slice(start, start + length + 1);
        fc.pre(oldText !== "" && oldText !== newText);
        const found = occurrences(before, oldText);
        const positions = all ? found : found.slice(0, 1);
        const after = applyReplacement(before, { oldText, newText, positions });
        const diff = await editDiff(before, after, { oldText, newText, positions }, never);
        assert.deepEqual(applyDiff(before, diff), lines(after), diff);
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("edit diff: a block of several lines gets a line diff; a changed last line ending shows", async () => {
  const before = "keep\nfunction f() {\n  return 1;\n}\nend";
  const oldText = "function f() {\n  return 1;\n}";
  const newText = "function f() {\n  return 2;\n}";
  const after = before.replace(oldText, newText);
  assert.equal(
    await editDiff(before, after, { oldText, newText, positions: [5] }, never),
    "@@ -1,5 +1,5 @@\n keep\n function f() {\n-  return 1;\n+  return 2;\n }\n end",
  );
  assert.equal(
    await editDiff("a\nb", "a\nb\n", { oldText: "b", newText: "b\n", positions: [2] }, never),
    "@@ -1,2 +1,2 @@\n a\n-b\n+b",
  );
});

Deno.test("edit diff: long lines are cut; changes far apart make separate hunks", async () => {
  const long = "x".repeat(2000);
  const before = `${long}\n1\n2\n3\n4\n5\n6\n${long}\n`;
  const after = before.replaceAll("x", "y");
  const positions = occurrences(before, "x");
  const diff = await editDiff(before, after, { oldText: "x", newText: "y", positions }, never);
  const rows = diff.split("\n");
  assert.equal(rows[1], `-${"x".repeat(499)}… [line truncated]`);
  assert.deepEqual(rows.filter((row) => row.startsWith("@@")), [
    "@@ -1,3 +1,3 @@",
    "@@ -6,3 +6,3 @@",
  ]);
});

Deno.test("edit diff: an abort stops it mid-way", async () => {
  const before = Array.from({ length: 400_000 }, (_, i) => `${i} foo\n`).join("");
  const after = before.replaceAll("foo", "bar");
  const positions = occurrences(before, "foo");
  // The diff keeps the event loop at most 30 ms before it lets this timer run.
  const abort = abortAfter(0, new Error("stopped"));
  await assert.rejects(
    () => editDiff(before, after, { oldText: "foo", newText: "bar", positions }, abort.signal),
    /stopped/,
  );
  const late = performance.now() - abort.firedAt();
  console.log(`stopped ${late.toFixed(0)} ms after the abort`);
  // Without the abort the diff resolves; the time is a deadline for a saturated machine.
  assert.ok(late < 15_000, `stopped ${late} ms after the abort`);
});
