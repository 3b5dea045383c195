import assert from "node:assert/strict";
import { readTool } from "../../../lib/tools/read.ts";
import { call, withProject } from "./tool_fixture.ts";

const GB = 1024 * 1024 * 1024;
/**
 * Well under the 1 GB a whole read would take, with room for the other test
 * files that run in parallel in this process and grow the same RSS.
 */
const MAX_RSS_GROWTH = 400 * 1024 * 1024;

/** Creates a sparse file: `head` followed by zero bytes up to `size` (no disk space used). */
async function sparseFile(path: string, head: string, size: number): Promise<void> {
  await Deno.writeTextFile(path, head);
  await Deno.truncate(path, size);
}

/** Runs `fn` and checks the process grew by less than 400 MB meanwhile. */
async function withinMemory<T>(fn: () => Promise<T>): Promise<T> {
  const before = Deno.memoryUsage().rss;
  const result = await fn();
  const growth = Deno.memoryUsage().rss - before;
  assert.ok(growth < MAX_RSS_GROWTH, `memory grew by ${Math.round(growth / 1024 / 1024)} MB`);
  return result;
}

const textLines = (n: number) =>
  Array.from({ length: n }, (_, i) => `log line ${i + 1} with some text`).join("\n") + "\n";

Deno.test("read: a 2 GB sparse file is called binary from its first bytes, without loading it", async () => {
  await withProject({}, async (root) => {
    await sparseFile(`${root}/huge.bin`, "", 2 * GB);
    const result = await withinMemory(() => call(readTool({ root }), { path: "huge.bin" }));
    assert.deepEqual(result, {
      text:
        "huge.bin looks like a binary file (NUL bytes, or mostly not UTF-8); read text files only",
      isError: true,
    });
  });
});

Deno.test("read: limit 3 on a 1 GB log reads three lines and says the size", async () => {
  await withProject({}, async (root) => {
    await sparseFile(`${root}/big.log`, textLines(1000), GB);
    const result = await withinMemory(() =>
      call(readTool({ root }), { path: "big.log", offset: 2, limit: 3 })
    );
    assert.equal(
      result.text,
      [
        "     2\tlog line 2 with some text",
        "     3\tlog line 3 with some text",
        "     4\tlog line 4 with some text",
        "",
        "[Showing lines 2-4 of a 1.0 GB file. Use offset=5 to read more.]",
      ].join("\n"),
    );
  });
});

Deno.test("read: without a limit a 1 GB log stops at the output cap, and a huge line is not read to its end", async () => {
  await withProject({}, async (root) => {
    await sparseFile(`${root}/big.log`, textLines(3000), GB);
    const capped = await withinMemory(() => call(readTool({ root }), { path: "big.log" }));
    const note = capped.text.match(/\[Showing lines 1-(\d+) of a 1\.0 GB file\. Use offset=(\d+)/);
    assert.ok(note, capped.text.slice(-300));
    assert.ok(new TextEncoder().encode(capped.text).length <= 51 * 1024);
    const shownLines = capped.text.split("\n\n[")[0]!.split("\n");
    assert.equal(shownLines.length, Number(note[1]));
    assert.equal(shownLines.at(-1), `${note[1]!.padStart(6)}\tlog line ${note[1]} with some text`);
    assert.equal(Number(note[2]), Number(note[1]) + 1);
    const tail = await withinMemory(() =>
      call(readTool({ root }), { path: "big.log", offset: 2999 })
    );
    assert.match(tail.text, /^ {2}2999\tlog line 2999 with some text\n {2}3000\tlog line 3000/);
    assert.match(tail.text, /\[Line 3001 is longer than 16\.0 MB: only its start is shown\./);
  });
});

Deno.test("read: files are still counted to the end when small, and an empty file says so", async () => {
  await withProject({ "a.txt": textLines(5), "empty.txt": "" }, async (root) => {
    const result = await call(readTool({ root }), { path: "a.txt", limit: 2 });
    assert.match(result.text, /\[Showing lines 1-2 of 5\. Use offset=3 to read more\.\]$/);
    assert.equal(
      (await call(readTool({ root }), { path: "empty.txt" })).text,
      "The file is empty.",
    );
  });
});

Deno.test("read: text in a legacy encoding is read, random bytes are binary", async () => {
  const latin1 = new Uint8Array([...new TextEncoder().encode("caf"), 0xe9, 0x0a]);
  const noise = new Uint8Array(4096).map((_, i) => 0x80 + (i * 37) % 120);
  await withProject({ "latin1.txt": latin1, "noise.dat": noise }, async (root) => {
    assert.equal(
      (await call(readTool({ root }), { path: "latin1.txt" })).text,
      "     1\tcaf\uFFFD",
    );
    assert.match((await call(readTool({ root }), { path: "noise.dat" })).text, /binary file/);
  });
});

Deno.test("read: an image over 10 MB is refused with its size", async () => {
  await withProject({}, async (root) => {
    await sparseFile(`${root}/shot.png`, "\x89PNG", 11 * 1024 * 1024);
    const result = await withinMemory(() => call(readTool({ root }), { path: "shot.png" }));
    assert.equal(result.isError, true);
    assert.match(result.text, /^shot\.png is 11\.0 MB: images over 10\.0 MB are not read/);
  });
});
