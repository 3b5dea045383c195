import assert from "node:assert/strict";
import { lsTool } from "../../../lib/tools/ls.ts";
import { call, withProject } from "./tool_fixture.ts";

Deno.test("ls: entries sorted case-insensitively, directories marked, dotfiles shown", async () => {
  await withProject(
    { "b.txt": "", "A.md": "", ".env": "", "src/x.ts": "", "Docs/y.md": "" },
    async (root) => {
      await Deno.symlink(`${root}/src`, `${root}/link`);
      const result = await call(lsTool({ root }), {});
      assert.deepEqual(result, { text: ".env\nA.md\nb.txt\nDocs/\nlink/\nsrc/", isError: false });
      assert.equal((await call(lsTool({ root }), { path: "src" })).text, "x.ts");
    },
  );
});

Deno.test("ls: a limit lists the first entries with a note", async () => {
  const files = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}.txt`, ""]));
  await withProject(files, async (root) => {
    const result = await call(lsTool({ root }), { limit: 2 });
    assert.equal(
      result.text,
      "f0.txt\nf1.txt\n\n[Listed 2 of 5 entries. Pass a larger limit, list a subdirectory, or use find with a pattern.]",
    );
  });
});

Deno.test("ls: empty, missing and file paths are explained", async () => {
  await withProject({ "a.txt": "" }, async (root) => {
    await Deno.mkdir(`${root}/empty`);
    assert.equal((await call(lsTool({ root }), { path: "empty" })).text, "empty is empty.");
    assert.deepEqual(await call(lsTool({ root }), { path: "nope" }), {
      text: "nope does not exist",
      isError: true,
    });
    assert.deepEqual(await call(lsTool({ root }), { path: "a.txt" }), {
      text: "a.txt is a file, not a directory: use read",
      isError: true,
    });
  });
});
