import assert from "node:assert/strict";
import fc from "fast-check";
import { parse } from "yaml";
import {
  FrontMatterError,
  parseFrontMatterYaml,
  simpleFields,
  splitFrontMatter,
  stringField,
} from "../../../cli/skills/front_matter.ts";
import { MAX_HEAD_BYTES, readHead } from "../../../cli/skills/read_head.ts";

Deno.test("front matter: split at the fences, CRLF normalised; none without an opening or closing fence", () => {
  assert.deepEqual(splitFrontMatter("---\r\nname: a\r\n---\r\n\r\nBody\r\n"), {
    yaml: "name: a",
    body: "Body",
  });
  assert.equal(splitFrontMatter("# Title\n---\nname: a\n---"), undefined);
  assert.equal(splitFrontMatter("---\nname: a\nno end"), undefined);
  assert.deepEqual(splitFrontMatter("---\n---\nonly body"), { yaml: "", body: "only body" });
});

Deno.test("front matter: plain key: value lines are read by hand, with yaml's values", async () => {
  const yaml =
    "name: pdf-tools\ndescription: Extracts text from PDFs. Use for PDF files.\nlicense: Apache-2.0\ndisable-model-invocation: true";
  const fields = simpleFields(yaml);
  assert.deepEqual(fields, parse(yaml));
  assert.deepEqual(await parseFrontMatterYaml(yaml), parse(yaml));
});

Deno.test("front matter: quotes, block scalars, comments, nesting and continuation lines go to yaml", async () => {
  const cases = [
    'description: "Reads: PDFs"',
    "description: >\n  Folded\n  text",
    "description: |\n  Literal",
    "name: x # a comment",
    "metadata:\n  author: ada",
    "description: first line\n  continued",
    "description: 'It''s'",
    "tags: [a, b]",
  ];
  for (const yaml of cases) {
    assert.equal(simpleFields(yaml), undefined, yaml);
    assert.deepEqual(await parseFrontMatterYaml(yaml), parse(yaml), yaml);
  }
});

Deno.test("property: whenever the hand reading applies, it gives what the yaml package gives", () => {
  const key = fc.stringMatching(/^[a-z][a-z0-9_-]{0,12}$/);
  const value = fc.string({ minLength: 1, maxLength: 40 }).filter((v) => !/[\n\r]/.test(v));
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 5 }),
      (pairs) => {
        const yaml = pairs.map(([k, v]) => `${k}: ${v}`).join("\n");
        const fields = simpleFields(yaml);
        if (fields === undefined) return;
        let expected: unknown;
        try {
          expected = parse(yaml);
        } catch {
          throw new Error(`hand reading accepted YAML that yaml rejects: ${JSON.stringify(yaml)}`);
        }
        const asText = Object.fromEntries(
          Object.entries((expected ?? {}) as Record<string, unknown>).map(([k, v]) => [
            k,
            typeof v === "boolean" ? v : v === null ? null : String(v),
          ]),
        );
        const ours = Object.fromEntries(
          Object.entries(fields).map(([k, v]) => [k, typeof v === "boolean" ? v : String(v)]),
        );
        // yaml reads `~`/`null` as null and numbers as numbers; only their text matters here.
        for (const [k, v] of Object.entries(asText)) {
          if (v === null) continue;
          assert.equal(ours[k], v, JSON.stringify(yaml));
        }
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("front matter: invalid YAML and a non-mapping are errors that say so", async () => {
  await assert.rejects(parseFrontMatterYaml("name: [unclosed"), (error: unknown) => {
    assert.ok(error instanceof FrontMatterError);
    assert.match(error.message, /invalid YAML front matter/);
    return true;
  });
  await assert.rejects(parseFrontMatterYaml("- a\n- b"), /not a YAML mapping/);
  assert.deepEqual(await parseFrontMatterYaml(""), {});
});

Deno.test("front matter: stringField trims text, reads numbers as text, skips others", () => {
  assert.equal(stringField({ a: "  x " }, "a"), "x");
  assert.equal(stringField({ a: 1.5 }, "a"), "1.5");
  assert.equal(stringField({ a: "  " }, "a"), undefined);
  assert.equal(stringField({ a: { b: 1 } }, "a"), undefined);
});

Deno.test("read head: only the front matter's part of a large file is read", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const big = `${dir}/big.md`;
    await Deno.writeTextFile(big, `---\nname: big\ndescription: d\n---\n${"x".repeat(1_000_000)}`);
    const head = readHead(big);
    assert.ok(head && !head.complete && head.text.length <= 4096, "the first 4 KiB only");
    const long = `${dir}/long.md`;
    await Deno.writeTextFile(long, `---\ndescription: ${"y".repeat(10_000)}\n---\nbody`);
    const longHead = readHead(long);
    assert.ok(longHead?.complete && longHead.text.endsWith("body"), "read on to the closing fence");
    const unclosed = `${dir}/unclosed.md`;
    await Deno.writeTextFile(unclosed, `---\n${"z: 1\n".repeat(100_000)}`);
    assert.equal(
      readHead(unclosed)?.text.length,
      MAX_HEAD_BYTES,
      "bounded without a closing fence",
    );
    assert.equal(readHead(`${dir}/missing.md`), undefined);
    assert.equal(readHead(dir), undefined, "a directory is no file");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
