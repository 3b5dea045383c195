import assert from "node:assert/strict";
import { grepTool } from "../../../lib/tools/grep.ts";
import { MAX_WALK_DEPTH } from "../../../lib/tools/walk_files.ts";
import { assertAbortStopsCall, call, withProject } from "./tool_fixture.ts";

const PROJECT = {
  ".gitignore": "dist/\n*.log\n",
  "src/app.ts": "import x from 'y';\nconst TODO = 1;\n// todo: later\nexport default x;\n",
  "src/util.js": "function todo() {}\n",
  "src/nested/.gitignore": "generated.ts\n",
  "src/nested/generated.ts": "TODO generated\n",
  "src/nested/kept.ts": "TODO kept\n",
  "dist/out.js": "TODO built\n",
  "debug.log": "TODO logged\n",
  "node_modules/pkg/index.js": "TODO dependency\n",
  ".github/workflows/ci.yml": "# TODO ci\n",
  "bin.dat": new Uint8Array([84, 79, 68, 79, 0, 1, 2]),
};

Deno.test("grep: finds matches as path:line:text, skipping ignored, vendored and binary files", async () => {
  await withProject(PROJECT, async (root) => {
    const result = await call(grepTool({ root }), { pattern: "TODO" });
    assert.deepEqual(result, {
      text:
        ".github/workflows/ci.yml:1:# TODO ci\nsrc/app.ts:2:const TODO = 1;\nsrc/nested/kept.ts:1:TODO kept",
      isError: false,
    });
  });
});

Deno.test("grep: ignoreCase, glob and a subdirectory path", async () => {
  await withProject(PROJECT, async (root) => {
    const tool = grepTool({ root });
    const loose = await call(tool, { pattern: "todo", ignoreCase: true, glob: "*.{ts,js}" });
    assert.equal(
      loose.text,
      "src/app.ts:2:const TODO = 1;\nsrc/app.ts:3:// todo: later\nsrc/nested/kept.ts:1:TODO kept\nsrc/util.js:1:function todo() {}",
    );
    const sub = await call(tool, { pattern: "TODO", path: "src/nested" });
    assert.equal(
      sub.text,
      "src/nested/kept.ts:1:TODO kept",
      "the root .gitignore and nested ones still apply",
    );
    const file = await call(tool, { pattern: "x", path: "src/app.ts" });
    assert.equal(file.text, "src/app.ts:1:import x from 'y';\nsrc/app.ts:4:export default x;");
  });
});

Deno.test("grep: context lines use '-' and groups are separated by --", async () => {
  const text = ["a", "match 1", "b", "c", "d", "e", "match 2", "f"].join("\n");
  await withProject({ "t.txt": text, "u.txt": "match 3\n" }, async (root) => {
    const result = await call(grepTool({ root }), { pattern: "match", context: 1 });
    assert.equal(
      result.text,
      [
        "t.txt-1-a",
        "t.txt:2:match 1",
        "t.txt-3-b",
        "--",
        "t.txt-6-e",
        "t.txt:7:match 2",
        "t.txt-8-f",
        "--",
        "u.txt:1:match 3",
      ].join("\n"),
    );
  });
});

Deno.test("grep: literal searches treat special characters as text", async () => {
  await withProject({ "a.txt": "a.b\naxb\nf(x)\n" }, async (root) => {
    const tool = grepTool({ root });
    assert.equal((await call(tool, { pattern: "a.b", literal: true })).text, "a.txt:1:a.b");
    assert.equal((await call(tool, { pattern: "f(x)", literal: true })).text, "a.txt:3:f(x)");
    assert.equal((await call(tool, { pattern: "a.b" })).text, "a.txt:1:a.b\na.txt:2:axb");
  });
});

Deno.test("grep: the match limit stops early with a note", async () => {
  const text = Array.from({ length: 50 }, (_, i) => `hit ${i + 1}`).join("\n");
  await withProject({ "a.txt": text }, async (root) => {
    const result = await call(grepTool({ root }), { pattern: "hit", limit: 3 });
    assert.equal(
      result.text,
      "a.txt:1:hit 1\na.txt:2:hit 2\na.txt:3:hit 3\n\n[Stopped at 3 matches; there may be more. Narrow the pattern, path or glob, or pass a larger limit.]",
    );
  });
});

Deno.test("grep: huge output is cut by bytes with a note; long lines are shortened", async () => {
  const line = "needle " + "x".repeat(2000);
  await withProject({ "a.txt": `${line}\n`.repeat(400) }, async (root) => {
    const result = await call(grepTool({ root }), { pattern: "needle", limit: 1000 });
    assert.match(
      result.text,
      /\[Output cut to \d+\.\d KB: showing \d+ of 400 lines\. Narrow the search/,
    );
    assert.ok(result.text.includes("… [line truncated]"));
    assert.ok(new TextEncoder().encode(result.text).length < 52 * 1024);
  });
});

Deno.test("grep: no matches, invalid patterns and missing paths are explained", async () => {
  await withProject({ "a.txt": "abc\n" }, async (root) => {
    const tool = grepTool({ root });
    assert.deepEqual(await call(tool, { pattern: "zzz" }), {
      text: "No matches for zzz in ..",
      isError: false,
    });
    const bad = await call(tool, { pattern: "(unclosed" });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /^Invalid regular expression "\(unclosed": .*pass literal: true/);
    assert.deepEqual(await call(tool, { pattern: "a", path: "nope" }), {
      text: "nope does not exist",
      isError: true,
    });
  });
});

Deno.test("grep: a backtracking pattern is stopped by the time budget with a clear error", async () => {
  await withProject({ "a.txt": `${"a".repeat(35)}!\n` }, async (root) => {
    // The match would run for ages: the budget's error at all shows the budget stopped it.
    const result = await call(grepTool({ root, matchBudgetMs: 300 }), { pattern: "(a+)+$" });
    assert.equal(result.isError, true);
    assert.match(result.text, /^grep stopped: the pattern "\(a\+\)\+\$" took longer than 0\.3 s/);
    assert.match(result.text, /simplify it/);
  });
});

Deno.test("grep: an abort stops a runaway match at once", async () => {
  await withProject({ "a.txt": `${"a".repeat(35)}!\n` }, async (root) => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(new Error("stopped by the user")), 200);
    // The match would run for ages (no budget error either): only the abort can end it.
    const result = await call(grepTool({ root }), { pattern: "(a+)+$" }, abort.signal);
    assert.deepEqual(result, { text: "stopped by the user", isError: true });
  });
});

Deno.test("grep: matches across many files come back through the worker within the budget", async () => {
  const files = Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, `line ${i}\nneedle ${i}\n`]),
  );
  await withProject(files, async (root) => {
    const result = await call(grepTool({ root, matchBudgetMs: 2000 }), { pattern: "needle 2\\d" });
    assert.equal(result.text.split("\n").length, 10, result.text);
  });
});

Deno.test("grep: a backtracking glob over long runs of one letter finishes at once", async () => {
  const files = Object.fromEntries([250, 200, 120, 60].map((n) => ["a".repeat(n), "needle\n"]));
  await withProject({ ...files, [`${"a".repeat(40)}b`]: "needle\n" }, async (root) => {
    // minimatch never finished this: an answer at all is the check.
    const result = await call(grepTool({ root }), {
      pattern: "needle",
      glob: `${"*a".repeat(30)}*b`,
    });
    assert.deepEqual(result, { text: `${"a".repeat(40)}b:1:needle`, isError: false });
  });
});

Deno.test("grep: a glob whose braces expand too far is refused", async () => {
  await withProject({ "a.txt": "x\n" }, async (root) => {
    const result = await call(grepTool({ root }), { pattern: "x", glob: "{a,b}".repeat(30) });
    assert.equal(result.isError, true);
    assert.match(result.text, /expands to more than 1000 patterns .*: use fewer brace sets/);
  });
});

Deno.test("grep: 2000 nested directories, each with a .gitignore, are searched to 100 levels in seconds, the rest named", async () => {
  await withProject({}, async (root) => {
    const deepest = `${root}/${Array(2000).fill("d").join("/")}`;
    await Deno.mkdir(deepest, { recursive: true });
    let dir = root;
    for (let level = 1; level <= 2000; level++) {
      dir += "/d";
      await Deno.writeTextFile(`${dir}/.gitignore`, level % 2 ? "*.log\n" : "/build\n");
    }
    const near = Array(MAX_WALK_DEPTH - 1).fill("d").join("/");
    await Deno.writeTextFile(`${root}/${near}/leaf.txt`, "needle\n");
    await Deno.writeTextFile(`${root}/${near}/leaf.log`, "needle\n");
    await Deno.writeTextFile(`${deepest}/leaf.txt`, "needle\n");
    const started = performance.now();
    const result = await call(grepTool({ root }), { pattern: "needle" });
    const elapsed = performance.now() - started;
    console.log(`grep through 2000 levels: ${elapsed.toFixed(0)} ms`);
    assert.match(
      result.text,
      new RegExp(`^${near}/leaf\\.txt:1:needle\n\n\\[Not searched: 1 directory`),
    );
    assert.ok(elapsed < 30_000, `took ${elapsed} ms (it took minutes when it grew with depth³)`);
  });
});

Deno.test("grep: an abort stops a long walk within a second", async () => {
  const files = Object.fromEntries(
    Array.from({ length: 3000 }, (_, i) => [`d${i % 30}/f${i}.txt`, "nothing here\n"]),
  );
  await withProject(files, async (root) => {
    await assertAbortStopsCall(grepTool({ root }), { pattern: "needle" });
  });
});
