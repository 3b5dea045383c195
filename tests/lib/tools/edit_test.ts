import assert from "node:assert/strict";
import { editTool } from "../../../lib/tools/edit.ts";
import { applyReplacement, editDiff } from "../../../lib/tools/edit_diff.ts";
import { call, withProject } from "./tool_fixture.ts";

const SOURCE = [
  "function greet(name) {",
  "  const greeting = 'hello';",
  "  return `${greeting} ${name}`;",
  "}",
  "",
  "function part() {",
  "  return 1;",
  "}",
  "",
].join("\n");

Deno.test("edit: replaces unique text and returns a diff", async () => {
  await withProject({ "a.js": SOURCE }, async (root) => {
    const result = await call(editTool({ root }), {
      path: "a.js",
      oldText: "'hello'",
      newText: "'hi'",
    });
    assert.equal(result.isError, false);
    assert.equal(
      result.text,
      [
        "Edited a.js: replaced 1 occurrence.",
        "",
        "@@ -1,4 +1,4 @@",
        " function greet(name) {",
        "-  const greeting = 'hello';",
        "+  const greeting = 'hi';",
        "   return `${greeting} ${name}`;",
        " }",
      ].join("\n"),
    );
    assert.equal(await Deno.readTextFile(`${root}/a.js`), SOURCE.replace("'hello'", "'hi'"));
  });
});

Deno.test("edit: replacement text is literal ($& and $1 are not patterns)", async () => {
  await withProject({ "a.txt": "price: X\n" }, async (root) => {
    await call(editTool({ root }), { path: "a.txt", oldText: "X", newText: "$& $1 $$" });
    assert.equal(await Deno.readTextFile(`${root}/a.txt`), "price: $& $1 $$\n");
  });
});

Deno.test("edit: missing text is an error that changes nothing", async () => {
  await withProject({ "a.js": SOURCE }, async (root) => {
    const result = await call(editTool({ root }), {
      path: "a.js",
      oldText: "goodbye",
      newText: "x",
    });
    assert.equal(result.isError, true);
    assert.match(result.text, /^oldText was not found in the file: read the file again/);
    assert.equal(await Deno.readTextFile(`${root}/a.js`), SOURCE);
  });
});

Deno.test("edit: text that matches only with whitespace ignored gets a hint showing the real lines", async () => {
  await withProject({ "a.js": SOURCE }, async (root) => {
    const result = await call(editTool({ root }), {
      path: "a.js",
      oldText: "function greet(name) {\n    const greeting =  'hello';",
      newText: "x",
    });
    assert.equal(result.isError, true);
    assert.equal(
      result.text,
      "oldText was not found exactly, but it matches if whitespace is ignored at lines 1-2:\n" +
        "1\tfunction greet(name) {\n2\t  const greeting = 'hello';\n" +
        "Copy the text exactly as it is in the file (indentation, tabs or spaces, trailing spaces and line breaks) and try again",
    );
  });
});

Deno.test("edit: text that is not unique says how many times and where", async () => {
  await withProject({ "a.js": SOURCE }, async (root) => {
    const result = await call(editTool({ root }), {
      path: "a.js",
      oldText: "}\n",
      newText: "};\n",
    });
    assert.equal(result.isError, true);
    assert.equal(
      result.text,
      "oldText occurs 2 times (at lines 4, 8): include more surrounding lines in oldText so that it matches exactly once, or set replaceAll to true to replace every occurrence",
    );
    assert.equal(await Deno.readTextFile(`${root}/a.js`), SOURCE);
  });
});

Deno.test("edit: replaceAll replaces every occurrence", async () => {
  await withProject({ "a.js": SOURCE }, async (root) => {
    const result = await call(editTool({ root }), {
      path: "a.js",
      oldText: "return",
      newText: "yield",
      replaceAll: true,
    });
    assert.match(result.text, /^Edited a\.js: replaced 2 occurrences\./);
    assert.equal(await Deno.readTextFile(`${root}/a.js`), SOURCE.replaceAll("return", "yield"));
  });
});

Deno.test("edit: a CRLF file matches LF text and keeps its line endings", async () => {
  await withProject({ "win.txt": "one\r\ntwo\r\nthree\r\n" }, async (root) => {
    const result = await call(editTool({ root }), {
      path: "win.txt",
      oldText: "one\ntwo",
      newText: "1\n2",
    });
    assert.equal(result.isError, false, result.text);
    assert.equal(await Deno.readTextFile(`${root}/win.txt`), "1\r\n2\r\nthree\r\n");
  });
});

Deno.test("edit: empty or unchanged text and missing files are refused", async () => {
  await withProject({ "a.txt": "x" }, async (root) => {
    const tool = editTool({ root });
    assert.match(
      (await call(tool, { path: "a.txt", oldText: "", newText: "y" })).text,
      /^oldText is empty/,
    );
    assert.match(
      (await call(tool, { path: "a.txt", oldText: "x", newText: "x" })).text,
      /nothing to change/,
    );
    assert.deepEqual(await call(tool, { path: "b.txt", oldText: "x", newText: "y" }), {
      text: "b.txt does not exist: use write to create it",
      isError: true,
    });
  });
});

Deno.test("edit: lines added to a CRLF file get CRLF too", async () => {
  await withProject({ "win.txt": "one\r\ntwo\r\n" }, async (root) => {
    const result = await call(editTool({ root }), {
      path: "win.txt",
      oldText: "one",
      newText: "zero\none",
    });
    assert.equal(result.isError, false, result.text);
    assert.equal(await Deno.readTextFile(`${root}/win.txt`), "zero\r\none\r\ntwo\r\n");
  });
});

Deno.test("edit: a file that is not UTF-8 is refused and left as it was", async () => {
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a]); // "café\nx\n" in Latin-1
  await withProject({ "old.txt": latin1 }, async (root) => {
    const result = await call(editTool({ root }), { path: "old.txt", oldText: "x", newText: "y" });
    assert.equal(result.isError, true);
    assert.match(result.text, /^old\.txt is not valid UTF-8/);
    assert.deepEqual(await Deno.readFile(`${root}/old.txt`), latin1);
  });
});

Deno.test("edit: a byte order mark is kept", async () => {
  await withProject({ "bom.txt": "\uFEFFa\n" }, async (root) => {
    await call(editTool({ root }), { path: "bom.txt", oldText: "a", newText: "b" });
    assert.deepEqual(
      [...await Deno.readFile(`${root}/bom.txt`)],
      [0xef, 0xbb, 0xbf, 0x62, 0x0a],
    );
  });
});

// How long these big edits take is measured by bench/edit_bench.ts, not asserted here.
Deno.test("edit: replaceAll on every line of a 50,000-line file is correct and cut to a summary", async () => {
  const lines = Array.from({ length: 50_000 }, (_, i) => `line ${i} foo\n`);
  await withProject({ "big.txt": lines.join("") }, async (root) => {
    const result = await call(editTool({ root }), {
      path: "big.txt",
      oldText: "foo",
      newText: "bar",
      replaceAll: true,
    });
    assert.equal(result.isError, false, result.text);
    assert.equal(
      await Deno.readTextFile(`${root}/big.txt`),
      lines.join("").replaceAll("foo", "bar"),
    );
    const shown = result.text.split("\n");
    assert.deepEqual(shown.slice(0, 5), [
      "Edited big.txt: replaced 50000 occurrences.",
      "",
      "@@ -1,50000 +1,50000 @@",
      "-line 0 foo",
      "+line 0 bar",
    ]);
    assert.equal(shown.at(-1), "… (99921 more diff lines; +50000 −50000 lines in all)");
    assert.equal(shown.length, 83);
  });
});

Deno.test("edit: an abort during a long edit stops it and leaves the file as it was", async () => {
  const content = Array.from({ length: 400_000 }, (_, i) => `${i} foo\n`).join("");
  await withProject({ "big.txt": content }, async (root) => {
    const abort = new AbortController();
    // As an interrupt would arrive: at the first turn of the event loop the edit lets in
    // (while the file is read or the diff worked out; either must stop).
    setTimeout(() => abort.abort(new Error("stopped by the user")), 0);
    const result = await call(
      editTool({ root }),
      { path: "big.txt", oldText: "foo", newText: "bar", replaceAll: true },
      abort.signal,
    );
    assert.deepEqual(result, { text: "stopped by the user", isError: true });
    assert.equal(await Deno.readTextFile(`${root}/big.txt`), content);
  });
});

Deno.test("edit: the diff of a long edit stops part-way on an abort, not after all its work", async () => {
  const before = Array.from({ length: 400_000 }, (_, i) => `${i} foo\n`).join("");
  const positions = [...before.matchAll(/foo/g)].map((match) => match.index);
  const replacement = { oldText: "foo", newText: "bar", positions };
  const after = applyReplacement(before, replacement);
  const aborted = new AbortController();
  aborted.abort(new Error("stopped by the user"));
  // Had it ignored the signal until the end, it would return the whole diff instead.
  await assert.rejects(editDiff(before, after, replacement, aborted.signal), /stopped by the user/);
});

Deno.test("edit: a file over 10 MB is refused with its size, the limit and what to use instead", async () => {
  await withProject({ "huge.log": "start\n" }, async (root) => {
    await Deno.truncate(`${root}/huge.log`, 100 * 1024 * 1024);
    const result = await call(editTool({ root }), {
      path: "huge.log",
      oldText: "start",
      newText: "begin",
    });
    assert.deepEqual(result, {
      text:
        "huge.log is 100.0 MB, over edit's limit of 10.0 MB: change it with bash instead (e.g. sed -i 's/old/new/' huge.log, or a script)",
      isError: true,
    });
  });
});

Deno.test("edit: a replaceAll that would grow the file past 10 MB is refused, the file unchanged", async () => {
  const content = "ab\n".repeat(100_000);
  await withProject({ "a.txt": content }, async (root) => {
    const result = await call(editTool({ root }), {
      path: "a.txt",
      oldText: "a",
      newText: "x".repeat(200),
      replaceAll: true,
    });
    assert.equal(result.isError, true);
    assert.match(
      result.text,
      /^The edit would make a\.txt 19\.3 MB, over edit's limit of 10\.0 MB: make the change with bash instead/,
    );
    assert.equal(await Deno.readTextFile(`${root}/a.txt`), content);
  });
});

Deno.test("edit: a miss in a 9 MB file is explained, with the whitespace-blind match's lines", async () => {
  const content = "word  and\tmore words here\n".repeat(350_000);
  await withProject({ "big.txt": content }, async (root) => {
    const tool = editTool({ root });
    const missing = await call(tool, { path: "big.txt", oldText: "nothing like it", newText: "x" });
    const loose = await call(tool, {
      path: "big.txt",
      oldText: "words here\nword and more",
      newText: "x",
    });
    assert.match(missing.text, /^oldText was not found in the file/);
    assert.match(loose.text, /^oldText was not found exactly, but it matches .* at lines 1-2:/);
  });
});
