import assert from "node:assert/strict";
import type { Tool } from "@panto/lib";
import { builtinTools } from "../../../lib/tools/builtin_tools.ts";
import { call, withProject } from "./tool_fixture.ts";

/** A directory outside the project holding secret.txt. */
async function withOutside(fn: (outside: string) => Promise<void>): Promise<void> {
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto_outside_" }));
  try {
    await Deno.writeTextFile(`${outside}/secret.txt`, "SECRET\n");
    await fn(outside);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
}

function byName(tools: Tool[], name: string): Tool {
  return tools.find((tool) => tool.decl.name === name)!;
}

/** Arguments that make each file tool touch `path`. */
const USES: Record<string, (path: string) => Record<string, unknown>> = {
  read: (path) => ({ path }),
  write: (path) => ({ path, content: "pwned" }),
  edit: (path) => ({ path, oldText: "SECRET", newText: "pwned" }),
  ls: (path) => ({ path }),
  grep: (path) => ({ pattern: "SECRET", path }),
  find: (path) => ({ pattern: "*", path }),
};

/** A path each tool accepts in form (a file for read/write/edit, a directory for the others). */
function target(tool: string, dir: string): string {
  return ["read", "write", "edit"].includes(tool) ? `${dir}/secret.txt` : dir;
}

for (const tool of Object.keys(USES)) {
  Deno.test(`confinement: ${tool} refuses ../, absolute paths and symlinks that leave the project`, async () => {
    await withOutside(async (outside) => {
      await withProject({ "inside.txt": "" }, async (root) => {
        await Deno.symlink(outside, `${root}/link`);
        const relativeOut = `../${outside.split("/").at(-1)}`;
        const tools = builtinTools({ root });
        for (const dir of [relativeOut, outside, "link"]) {
          const result = await call(byName(tools, tool), USES[tool]!(target(tool, dir)));
          assert.equal(result.isError, true, `${tool} ${dir}: ${result.text}`);
          assert.match(result.text, /is outside the working directory/, `${tool} ${dir}`);
        }
        assert.equal(await Deno.readTextFile(`${outside}/secret.txt`), "SECRET\n");
      });
    });
  });
}

Deno.test("confinement: allowedRoots opens a directory outside the project", async () => {
  await withOutside(async (outside) => {
    await withProject({}, async (root) => {
      const tools = builtinTools({ root, allowedRoots: [outside] });
      assert.equal(
        (await call(byName(tools, "read"), { path: `${outside}/secret.txt` })).text,
        "     1\tSECRET",
      );
      const grep = await call(byName(tools, "grep"), { pattern: "SECRET", path: outside });
      assert.equal(grep.text, `${outside}/secret.txt:1:SECRET`);
      await call(byName(tools, "edit"), {
        path: `${outside}/secret.txt`,
        oldText: "SECRET",
        newText: "shared",
      });
      assert.equal(await Deno.readTextFile(`${outside}/secret.txt`), "shared\n");
    });
  });
});

Deno.test("confinement: grep and find do not follow symlinks out of the project", async () => {
  await withOutside(async (outside) => {
    await withProject({ "a.txt": "nothing here\n" }, async (root) => {
      await Deno.symlink(`${outside}/secret.txt`, `${root}/leak.txt`);
      await Deno.symlink(outside, `${root}/leakdir`);
      const tools = builtinTools({ root });
      assert.equal(
        (await call(byName(tools, "grep"), { pattern: "SECRET" })).text,
        "No matches for SECRET in ..",
      );
      assert.equal(
        (await call(byName(tools, "find"), { pattern: "secret.txt" })).text,
        'No paths match "secret.txt" under ..',
      );
    });
  });
});

Deno.test("confinement: write refuses a dangling symlink whose target is outside", async () => {
  await withOutside(async (outside) => {
    await withProject({}, async (root) => {
      await Deno.symlink(`${outside}/created.txt`, `${root}/dangling.txt`);
      await Deno.symlink(`${outside}/newdir`, `${root}/danglingdir`);
      const write = byName(builtinTools({ root }), "write");
      for (const path of ["dangling.txt", "danglingdir/file.txt"]) {
        const result = await call(write, { path, content: "pwned" });
        assert.equal(result.isError, true, `${path}: ${result.text}`);
        assert.match(result.text, /is outside the working directory/);
      }
      await assert.rejects(Deno.lstat(`${outside}/created.txt`), Deno.errors.NotFound);
    });
  });
});

Deno.test("confinement: write follows a dangling symlink that stays inside", async () => {
  await withProject({}, async (root) => {
    await Deno.symlink("target.txt", `${root}/alias.txt`);
    const result = await call(byName(builtinTools({ root }), "write"), {
      path: "alias.txt",
      content: "hi",
    });
    assert.equal(result.isError, false, result.text);
    assert.equal(await Deno.readTextFile(`${root}/target.txt`), "hi");
  });
});
