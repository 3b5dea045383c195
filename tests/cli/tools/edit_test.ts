import assert from "node:assert/strict";
import { editTool } from "../../../cli/tools/edit.ts";
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
