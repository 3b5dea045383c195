import assert from "node:assert/strict";
import { writeTool } from "../../../lib/tools/write.ts";
import { call, withProject } from "./tool_fixture.ts";

Deno.test("write: creates a file and its parent directories, reporting bytes", async () => {
  await withProject({}, async (root) => {
    const result = await call(writeTool({ root }), { path: "src/deep/é.txt", content: "héllo\n" });
    assert.deepEqual(result, { text: "Created src/deep/é.txt: wrote 7 bytes.", isError: false });
    assert.equal(await Deno.readTextFile(`${root}/src/deep/é.txt`), "héllo\n");
  });
});

Deno.test("write: overwrites an existing file", async () => {
  await withProject({ "a.txt": "old content" }, async (root) => {
    const result = await call(writeTool({ root }), { path: "a.txt", content: "new" });
    assert.equal(result.text, "Overwrote a.txt: wrote 3 bytes.");
    assert.equal(await Deno.readTextFile(`${root}/a.txt`), "new");
  });
});

Deno.test("write: a directory path is refused", async () => {
  await withProject({ "src/a.txt": "" }, async (root) => {
    const result = await call(writeTool({ root }), { path: "src", content: "x" });
    assert.deepEqual(result, { text: "src is a directory: give a file path", isError: true });
  });
});
