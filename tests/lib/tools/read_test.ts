import assert from "node:assert/strict";
import { readTool } from "../../../lib/tools/read.ts";
import { call, withProject } from "./tool_fixture.ts";

const numbered = (n: number) =>
  Array.from({ length: n }, (_, i) => `row ${i + 1}`).join("\n") + "\n";

Deno.test("read: numbers lines and says how to read on", async () => {
  await withProject({ "a.txt": numbered(10) }, async (root) => {
    const result = await call(readTool({ root }), { path: "a.txt", offset: 3, limit: 2 });
    assert.equal(
      result.text,
      "     3\trow 3\n     4\trow 4\n\n[Showing lines 3-4 of 10. Use offset=5 to read more.]",
    );
    const rest = await call(readTool({ root }), { path: "a.txt", offset: 9 });
    assert.equal(rest.text, "     9\trow 9\n    10\trow 10");
  });
});

Deno.test("read: output is capped at 50 KB with a note giving the next offset", async () => {
  const line = "x".repeat(1000);
  await withProject({ "big.txt": `${line}\n`.repeat(200) }, async (root) => {
    const result = await call(readTool({ root }), { path: "big.txt" });
    const match = result.text.match(
      /\[Showing lines 1-(\d+) of 200\. Use offset=(\d+) to read more\.\]$/,
    );
    assert.ok(match, result.text.slice(-200));
    assert.equal(Number(match[2]), Number(match[1]) + 1);
    assert.ok(result.text.length <= 51 * 1024);
  });
});

Deno.test("read: offset past the end and missing files are explained", async () => {
  await withProject({ "a.txt": "one\n" }, async (root) => {
    assert.equal(
      (await call(readTool({ root }), { path: "a.txt", offset: 5 })).text,
      "The file has 1 lines; offset 5 is past the end.",
    );
    const missing = await call(readTool({ root }), { path: "nope.txt" });
    assert.deepEqual(missing, { text: "nope.txt does not exist", isError: true });
  });
});
