import assert from "node:assert/strict";
import fc from "fast-check";
import { braceExpand, Minimatch } from "minimatch";
import { globMatcher } from "../../../lib/tools/glob_match.ts";

/**
 * What find and grep matched with before: minimatch, dot files included,
 * matchBase without `/`; `undefined` where minimatch throws (it builds an
 * invalid regex for `-[[:alpha:]]`).
 */
function minimatchMatcher(pattern: string): ((path: string) => boolean) | undefined {
  try {
    const matcher = new Minimatch(pattern, { dot: true, matchBase: !pattern.includes("/") });
    return (path) => matcher.match(path);
  } catch {
    return undefined;
  }
}

// Pieces of segments: literals, wildcards, classes, braces. Left out: extglobs
// (literal here), `\` escapes (minimatch's fast path drops the match of `?\a`
// on `-a`; the examples below cover them) and `.` or empty segments.
const piece = fc.constantFrom(
  "a",
  "b",
  ".",
  "-",
  "*",
  "**",
  "?",
  "[",
  "[ab]",
  "[!a]",
  "[^b]",
  "[a-b]",
  "[b-a]",
  "[]a]",
  "[a-]",
  "[.]",
  "[[:alpha:]]",
  "{a,b}",
  "{,.a}",
  "{a,*/b}",
  "{1..2}",
);
const patternSegment = fc.oneof(
  { weight: 1, arbitrary: fc.constant("**") },
  {
    weight: 4,
    arbitrary: fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""))
      .filter((segment) => segment !== "." && segment !== ".."),
  },
);
const pattern = fc.tuple(
  fc.constantFrom("", "", "!"),
  fc.array(patternSegment, { minLength: 1, maxLength: 4 }),
).map(([bang, segments]) => bang + segments.join("/"));
const pathSegment = fc.stringMatching(/^[ab12.*\-[\]\\]{1,5}$/).filter((s) =>
  s !== "." && s !== ".."
);
const path = fc.array(pathSegment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));

Deno.test("glob: agrees with minimatch on random globs and paths", async () => {
  await fc.assert(
    fc.asyncProperty(
      pattern,
      fc.array(path, { minLength: 1, maxLength: 8 }),
      async (glob, paths) => {
        const expected = minimatchMatcher(glob);
        fc.pre(expected !== undefined);
        // A leading `./` is ignored here, where minimatch matched nothing.
        fc.pre(!braceExpand(glob.replace(/^!/, "")).some((alt) => /^\.(\/|$)/.test(alt)));
        const matches = await globMatcher(glob);
        for (const p of paths) assert.equal(matches(p), expected(p), `${glob} on ${p}`);
      },
    ),
    { numRuns: 5000 },
  );
});

Deno.test("glob: escapes, dot files, matchBase, ** and the deliberate differences", async () => {
  const cases: [string, string, boolean][] = [
    ["\\*", "*", true],
    ["\\*", "a", false],
    ["?\\a", "-a", true],
    ["a\\", "a\\", true],
    ["*.ts", "src/.hidden.ts", true],
    ["src/*.ts", "lib/src/a.ts", false],
    ["src/**", "src", false],
    ["src/**", "src/a/b", true],
    ["src/**/b", "src/b", true],
    ["!*.ts", "a.js", true],
    ["!*.ts", "a.ts", false],
    // Not minimatch's: a leading ./ is ignored, extglob and # are plain characters.
    ["./src/*.ts", "src/a.ts", true],
    ["*(1).png", "photo (1).png", true],
    ["@(a|b)", "a", false],
    ["#*#", "#notes#", true],
  ];
  for (const [glob, path, expected] of cases) {
    assert.equal((await globMatcher(glob))(path), expected, `${glob} on ${path}`);
  }
});

Deno.test("glob: a backtracking pattern on long runs of one letter finishes", async () => {
  const glob = `${"*a".repeat(30)}*b`;
  const names = [400, 200, 60].map((n) => "a".repeat(n));
  // Backtracking matchers never finish these: an answer at all is the check.
  const matches = await globMatcher(glob);
  const hits = names.filter((name) => matches(`dir/${name}`));
  assert.deepEqual(hits, []);
  assert.ok(matches(`${"a".repeat(40)}b`));
});

Deno.test("glob: braces that expand too far and overlong globs are refused", async () => {
  await assert.rejects(
    () => globMatcher("{a,b}".repeat(30)),
    /expands to more than 1000 patterns or 65536 characters \(each \{a,b\} set multiplies them\): use fewer brace sets/,
  );
  await assert.rejects(
    () => globMatcher("a".repeat(5000)),
    /^Error: The glob is 5000 characters long; the most accepted is 4096/,
  );
  assert.ok((await globMatcher("{a,b}".repeat(9)))("abababbba"));
});
