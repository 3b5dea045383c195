import assert from "node:assert/strict";
import { builtinTools } from "../../../lib/tools/builtin_tools.ts";
import { selectTools } from "../../../cli/tools/select_tools.ts";
import { UsageError } from "../../../cli/shared/errors.ts";

const all = builtinTools({ root: "/tmp" });

Deno.test("builtin tools: all seven, with valid object schemas", () => {
  assert.deepEqual(all.map((t) => t.decl.name), [
    "read",
    "write",
    "edit",
    "bash",
    "ls",
    "grep",
    "find",
  ]);
  for (const tool of all) {
    assert.equal(tool.decl.inputSchema.type, "object", tool.decl.name);
    assert.ok(tool.decl.description.length > 20, tool.decl.name);
  }
});

Deno.test("builtin tools: selection by name, none, or all", () => {
  assert.deepEqual(selectTools(all, ["grep", " read", "grep"]).map((t) => t.decl.name), [
    "grep",
    "read",
  ]);
  assert.deepEqual(selectTools(all, "none"), []);
  assert.equal(selectTools(all, undefined).length, 7);
});

Deno.test("builtin tools: an unknown name is a usage error listing the valid ones", () => {
  assert.throws(
    () => selectTools(all, ["read", "grpe"]),
    (error: unknown) =>
      error instanceof UsageError && error.exitCode === 2 &&
      error.message ===
        'Unknown tool "grpe" (did you mean "grep"?): valid tools are read, write, edit, bash, ls, grep, find',
  );
});
