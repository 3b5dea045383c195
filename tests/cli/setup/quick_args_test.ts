/**
 * The quick reading of a chat or print command line (no optique) gives what
 * optique's full parse gives, or leaves the line to it.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseArgs } from "../../../cli/setup/args.ts";
import {
  COMMAND_WORDS,
  MODEL_FLAGS,
  PROMPT_FLAGS,
  quickChatArgs,
  STORE_FLAGS,
} from "../../../cli/setup/chat_args.ts";

const TABLES = [PROMPT_FLAGS, MODEL_FLAGS, STORE_FLAGS];
const NAMES = TABLES.flatMap((table) => Object.values(table).flatMap((spec) => [...spec.names]));
const VALUES = [
  ...TABLES.flatMap((table) =>
    Object.values(table).flatMap((spec) =>
      spec.value?.kind === "choice" ? [...spec.value.choices] : []
    )
  ),
  ...COMMAND_WORDS,
  "hello",
  "fix the bug",
  "@notes.md",
  "read,bash",
  "0",
  "1",
  "12",
  "007",
  "+3",
  "1e3",
  "-1",
  "",
  "-",
  "--",
  "-h",
  "--help",
  "--version",
  "--model=sonnet",
  "-pc",
  "--bogus",
  "naïve — ü",
];

/** A parse's result or the message it failed with. */
function outcome(parse: () => unknown): unknown {
  try {
    return parse();
  } catch (error) {
    return { error: String(error) };
  }
}

Deno.test("a plain print command line is read without optique, as optique reads it", () => {
  const lines = [
    ["-p", "hi"],
    ["-p", "--mode", "json", "-m", "fake", "--thinking", "high", "two", "words"],
    ["explain", "-p", "this", "--no-session", "--max-turns", "3", "-e", "a.ts", "-e", "b.ts"],
    ["-c", "--tools", "read, bash", "--store", "sqlite", "--store-url", "s.db", "go"],
    ["-r", "--no-tools"],
    [],
  ];
  for (const argv of lines) {
    const quick = quickChatArgs(argv);
    assert.ok(quick, `read quickly: ${JSON.stringify(argv)}`);
    assert.deepEqual(quick, parseArgs(argv));
  }
});

Deno.test("help, commands, unknown, repeated and joined flags and bad values are left to optique", () => {
  const lines = [
    ["--help"],
    ["-p", "-h"],
    ["--version"],
    ["sessions"],
    ["completion", "bash"],
    ["acp"],
    ["-p", "--bogus", "hi"],
    ["-p", "-p", "hi"],
    ["-m", "a", "-m", "b"],
    ["--model=sonnet", "hi"],
    ["-pc", "hi"],
    ["--thinking", "enormous"],
    ["--max-turns", "0"],
    ["--max-turns", "007"],
    ["-m"],
    ["-m", "-p"],
    ["-p", "--", "-x"],
    ["-p", ""],
  ];
  for (const argv of lines) assert.equal(quickChatArgs(argv), undefined, JSON.stringify(argv));
});

Deno.test("property: whatever the quick reading accepts, optique parses the same way", () => {
  let accepted = 0;
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.constantFrom(...NAMES), fc.constantFrom(...VALUES), fc.string()), {
        maxLength: 8,
      }),
      (argv) => {
        const quick = outcome(() => quickChatArgs(argv));
        if (quick === undefined) return;
        accepted++;
        // optique exits the process on a line it rejects: that fails this test too.
        assert.deepEqual(quick, outcome(() => parseArgs(argv)), JSON.stringify(argv));
      },
    ),
    { numRuns: 400 },
  );
  // Not vacuous: a good share of the generated lines is read quickly.
  assert.ok(accepted > 40, `only ${accepted} of 400 lines were read quickly`);
});
