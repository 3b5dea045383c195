import assert from "node:assert/strict";
import { findTool } from "../../../cli/tools/find.ts";
import { call, withProject } from "./tool_fixture.ts";

const PROJECT = {
  ".gitignore": "build/\n",
  "src/a.ts": "",
  "src/a_test.ts": "",
  "src/lib/b.ts": "",
  "src/lib/c.tsx": "",
  "README.md": "",
  ".github/ci.ts": "",
  "build/out.ts": "",
  "node_modules/x/index.ts": "",
};

Deno.test("find: a pattern without / matches names at any depth, hidden directories included", async () => {
  await withProject(PROJECT, async (root) => {
    const result = await call(findTool({ root }), { pattern: "*.ts" });
    assert.deepEqual(result, {
      text: ".github/ci.ts\nsrc/a.ts\nsrc/a_test.ts\nsrc/lib/b.ts",
      isError: false,
    });
  });
});

Deno.test("find: path globs, brace sets, directories and a search path", async () => {
  await withProject(PROJECT, async (root) => {
    const tool = findTool({ root });
    assert.equal((await call(tool, { pattern: "src/**/*_test.ts" })).text, "src/a_test.ts");
    assert.equal((await call(tool, { pattern: "*.{tsx,md}" })).text, "README.md\nsrc/lib/c.tsx");
    assert.equal((await call(tool, { pattern: "lib" })).text, "src/lib/");
    assert.equal((await call(tool, { pattern: "*.ts", path: "src/lib" })).text, "src/lib/b.ts");
  });
});

Deno.test("find: the limit lists the first paths with a note", async () => {
  await withProject(PROJECT, async (root) => {
    const result = await call(findTool({ root }), { pattern: "*.ts", limit: 2 });
    assert.equal(
      result.text,
      ".github/ci.ts\nsrc/a.ts\n\n[Showing the first 2 paths. Use a narrower pattern or path, or pass a larger limit.]",
    );
  });
});

Deno.test("find: no match and bad paths are explained", async () => {
  await withProject(PROJECT, async (root) => {
    const tool = findTool({ root });
    assert.deepEqual(await call(tool, { pattern: "*.rs" }), {
      text: 'No paths match "*.rs" under ..',
      isError: false,
    });
    assert.deepEqual(await call(tool, { pattern: "*", path: "README.md" }), {
      text: "README.md is a file, not a directory",
      isError: true,
    });
  });
});

Deno.test("find: an aborted search stops", async () => {
  await withProject(PROJECT, async (root) => {
    const abort = new AbortController();
    abort.abort(new Error("stop"));
    assert.deepEqual(await call(findTool({ root }), { pattern: "*" }, abort.signal), {
      text: "stop",
      isError: true,
    });
  });
});
