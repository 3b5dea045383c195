import assert from "node:assert/strict";
import { findTool } from "../../../lib/tools/find.ts";
import { MAX_WALK_DEPTH } from "../../../lib/tools/walk_files.ts";
import { assertAbortStopsCall, call, withProject } from "./tool_fixture.ts";

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

/** Makes `levels` nested directories `d/d/…` under `root`, each with `gitignore` as its .gitignore. */
async function nest(root: string, levels: number, gitignore: (level: number) => string) {
  const deepest = `${root}/${Array(levels).fill("d").join("/")}`;
  await Deno.mkdir(deepest, { recursive: true });
  let dir = root;
  for (let level = 1; level <= levels; level++) {
    dir += "/d";
    await Deno.writeTextFile(`${dir}/.gitignore`, gitignore(level));
  }
  return deepest;
}

Deno.test("find: a backtracking glob over long runs of one letter finishes", async () => {
  await withProject({}, async (root) => {
    for (const n of [250, 200, 120, 60]) await Deno.writeTextFile(`${root}/${"a".repeat(n)}`, "");
    await Deno.writeTextFile(`${root}/${"a".repeat(40)}b`, "");
    // minimatch never finished this: an answer at all is the check.
    const result = await call(findTool({ root }), { pattern: `${"*a".repeat(30)}*b` });
    assert.deepEqual(result, { text: `${"a".repeat(40)}b`, isError: false });
  });
});

Deno.test("find: 2000 nested directories, each with a .gitignore: the first 100 levels are walked, the rest named in a note", async () => {
  await withProject({}, async (root) => {
    // Names only, and patterns with a `/` (anchored to their directory), alternately.
    const deepest = await nest(root, 2000, (level) => level % 2 ? "*.log\n" : "/build\nx/*.tmp\n");
    await Deno.writeTextFile(`${deepest}/leaf.txt`, "");
    // An even level: its .gitignore ignores /build.
    const near = `${root}/${Array(MAX_WALK_DEPTH - 2).fill("d").join("/")}`;
    await Deno.writeTextFile(`${near}/leaf.txt`, "");
    await Deno.writeTextFile(`${near}/leaf.log`, "");
    await Deno.mkdir(`${near}/build`);
    await Deno.writeTextFile(`${near}/build/leaf.txt`, "");
    const started = performance.now();
    const result = await call(findTool({ root }), { pattern: "leaf.*" });
    const elapsed = performance.now() - started;
    console.log(`find through 2000 levels: ${elapsed.toFixed(0)} ms`);
    const tooDeep = Array(MAX_WALK_DEPTH).fill("d").join("/");
    assert.equal(
      result.text,
      `${Array(MAX_WALK_DEPTH - 2).fill("d").join("/")}/leaf.txt\n\n[Not searched: 1 directory ` +
        `more than ${MAX_WALK_DEPTH} levels down, such as ${tooDeep}/; to search there, pass it as the path]`,
    );
    assert.ok(elapsed < 30_000, `took ${elapsed} ms (it took minutes when it grew with depth³)`);
    const below = await call(findTool({ root }), { pattern: "leaf.*", path: tooDeep });
    assert.match(
      below.text,
      /^No paths match .*\[Not searched: 1 directory/s,
      "the walk goes on below",
    );
  });
});

Deno.test("find: .gitignore patterns with a / apply at their depth, names at any depth", async () => {
  const project = {
    ".gitignore": "src/gen/\n**/tmp/\n*.bak\n",
    "src/gen/a.ts": "",
    "src/a.ts": "",
    "lib/src/gen/b.ts": "",
    "lib/x/y/tmp/c.ts": "",
    "lib/x/y/z/d.ts.bak": "",
    "lib/x/y/z/d.ts": "",
  };
  await withProject(project, async (root) => {
    const tool = findTool({ root });
    const result = await call(tool, { pattern: "*.ts*" });
    assert.equal(result.text, "lib/src/gen/b.ts\nlib/x/y/z/d.ts\nsrc/a.ts");
    // From below the .gitignore's directory, its patterns still apply at their depth.
    assert.equal((await call(tool, { pattern: "*.ts", path: "src" })).text, "src/a.ts");
    assert.equal((await call(tool, { pattern: "*.ts", path: "lib/src" })).text, "lib/src/gen/b.ts");
  });
});

Deno.test("find: an abort stops a long walk within a second", async () => {
  await withProject({}, async (root) => {
    await nest(root, 2000, () => "*.log\n");
    await assertAbortStopsCall(findTool({ root }), { pattern: "nothing" });
  });
});
