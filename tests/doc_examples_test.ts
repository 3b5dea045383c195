/**
 * Runs every `@example` of the packages' doc comments, all in this one
 * process, with `console.assert` made to throw: under `deno test --doc` a
 * false `console.assert` only prints "Assertion failed" and the example
 * still passes, and each of the ~500 examples pays for a worker of its own
 * (about a minute of CPU). The examples' types are checked by
 * `deno task check` (`deno check --doc`).
 *
 * Each ```ts block of a doc comment (or of a package's Markdown) is written, its relative imports made
 * absolute, to a file under `.doc-examples/` (so the workspace's import
 * map and npm packages resolve as for the source), and imported in a test
 * of its own, named after the file and line it comes from.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = new URL("../", import.meta.url).pathname;
/** Where examples are: the packages, their READMEs, and the tests' shared helpers. */
const PACKAGES = ["lib", "tui", "cli", "tests/support"];
const OUT = join(ROOT, ".doc-examples");

/** One example: its code and where it stands. */
interface Example {
  file: string;
  line: number;
  code: string;
}

const FENCE_OPEN = /^```(ts|typescript|js|javascript)(\s.*)?$/;

/**
 * The ```ts blocks of a module's doc comments, or of a Markdown file (a block marked `ignore` is
 * left out).
 */
function examplesOf(file: string, text: string): Example[] {
  const examples: Example[] = [];
  const lines = text.split("\n");
  const content = file.endsWith(".md") ? /^(.*)$/ : /^\s*\* ?(.*)$/;
  let block: { line: number; code: string[] } | undefined;
  for (const [index, raw] of lines.entries()) {
    const match = content.exec(raw);
    if (!match) {
      block = undefined;
      continue;
    }
    const line = match[1]!;
    if (block) {
      if (line.trimEnd() === "```") {
        examples.push({ file, line: block.line, code: block.code.join("\n") });
        block = undefined;
      } else block.code.push(line);
      continue;
    }
    const open = FENCE_OPEN.exec(line.trimEnd());
    if (open && !/\bignore\b/.test(open[2] ?? "")) block = { line: index + 1, code: [] };
  }
  return examples;
}

/**
 * `code` with its `./` and `../` imports made file URLs resolved from `file`: only on lines that
 * are import or export statements (or close one), so a string holding module text is left alone.
 */
function absoluteImports(code: string, file: string): string {
  const base = pathToFileURL(join(ROOT, file));
  return code.split("\n").map((line) =>
    /^\s*(import|export|\})\b/.test(line)
      ? line.replace(
        /(\bfrom\s*|^\s*import\s*)(["'])(\.{1,2}\/[^"']+)\2/,
        (_all, before: string, quote: string, specifier: string) =>
          `${before}${quote}${new URL(specifier, base).href}${quote}`,
      )
      : line
  ).join("\n");
}

function sourceFiles(): string[] {
  const files = ["mod.ts"];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(join(ROOT, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.name.endsWith(".ts") || entry.name.endsWith(".md")) files.push(path);
    }
  };
  for (const dir of PACKAGES) walk(dir);
  return files.sort();
}

const examples = sourceFiles().flatMap((file) =>
  examplesOf(file, Deno.readTextFileSync(join(ROOT, file)))
);

Deno.test("doc examples: the blocks are found (a broken reader would pass by running none)", () => {
  assert.ok(examples.length >= 400, `only ${examples.length} examples found`);
  const [sample] = examplesOf("x.ts", "/**\n * @example\n * ```ts\n * const a = 1;\n * ```\n */");
  assert.deepEqual(sample, { file: "x.ts", line: 3, code: "const a = 1;" });
});

Deno.test("doc examples: a false console.assert fails its example", async () => {
  await assert.rejects(() =>
    runExample({ file: "probe.ts", line: 1, code: "console.assert(1 > 2);" })
  );
});

async function runExample(example: Example): Promise<void> {
  const name = `${example.file.replaceAll("/", "__")}_${example.line}.ts`;
  const path = join(OUT, name);
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, `${absoluteImports(example.code, example.file)}\nexport {};\n`);
  const original = console.assert;
  console.assert = (condition?: boolean, ...data: unknown[]) => {
    if (!condition) throw new Error(`Assertion failed${data.length ? `: ${data.join(" ")}` : ""}`);
  };
  try {
    await import(pathToFileURL(path).href);
  } finally {
    console.assert = original;
    await Deno.remove(path);
  }
}

for (const example of examples) {
  Deno.test(`doc example: ${example.file}:${example.line}`, () => runExample(example));
}
