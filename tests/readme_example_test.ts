/**
 * The README's library example must compile as written, under the
 * project's own compiler options (strict, exactOptionalPropertyTypes, …):
 * each ```ts block of its "Using the library" section is written to a file
 * inside the repository, so the workspace import map resolves `@panto/lib`,
 * and checked with `deno check`.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const SECTION = "## Using the library";

/** The ```ts blocks between the section's heading and the next `## ` heading. */
function libraryExamples(readme: string): string[] {
  const start = readme.indexOf(`\n${SECTION}\n`);
  assert.ok(start >= 0, `README.md has no "${SECTION}" section`);
  const rest = readme.slice(start + SECTION.length + 2);
  const end = rest.search(/^## /m);
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Runs `deno check` on `code` as a module inside the repository. */
async function typeCheck(code: string): Promise<{ ok: boolean; output: string }> {
  const file = await Deno.makeTempFile({
    dir: new URL("tests/", ROOT).pathname,
    prefix: ".readme_example_",
    suffix: ".ts",
  });
  try {
    await Deno.writeTextFile(file, code);
    const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", file],
      cwd: ROOT.pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return { ok: success, output: decoder.decode(stdout) + decoder.decode(stderr) };
  } finally {
    await Deno.remove(file);
  }
}

Deno.test("README.md: the library example type-checks under the project's compiler options", async () => {
  const examples = libraryExamples(await Deno.readTextFile(new URL("README.md", ROOT)));
  assert.ok(examples.length > 0, `no \`\`\`ts block in README.md's "${SECTION}"`);
  for (const example of examples) {
    const { ok, output } = await typeCheck(example);
    assert.ok(ok, `README.md's library example does not type-check:\n${output}`);
  }
});

Deno.test("README.md example check: a file in the repository gets the strict options", async () => {
  // Passes under plain strict mode, fails under exactOptionalPropertyTypes:
  // proves the checked file is compiled with the project's deno.json.
  const { ok, output } = await typeCheck(
    "const value: string | undefined = undefined;\nconst holder: { key?: string } = { key: value };\nexport { holder };\n",
  );
  assert.ok(!ok, "expected a type error");
  assert.match(output, /exactOptionalPropertyTypes|not assignable/);
});
