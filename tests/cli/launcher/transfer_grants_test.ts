/**
 * What `panto sessions export ID PATH` and `panto sessions import FILE` are
 * granted by the launcher: exactly the file written (or the highest
 * directory missing above it, which the export creates) and the file read;
 * the same words in a chat's prompt grant nothing.
 */
import assert from "node:assert/strict";
import { flagNeeds } from "../../../cli/launcher/config_needs.ts";

const existing = new Set(["/", "/tmp", "/work", "/work/app"]);
const context = { cwd: "/work/app", home: "/home/ada", exists: (p: string) => existing.has(p) };

Deno.test("sessions export PATH: the file is written; a missing directory above it, the highest one", () => {
  assert.deepEqual(flagNeeds(["sessions", "export", "abc", "/tmp/s.html"], context).readWrite, [
    "/tmp/s.html",
  ]);
  assert.deepEqual(
    flagNeeds(["sessions", "export", "abc", "/tmp/new/deeper/s.html", "--force"], context)
      .readWrite,
    ["/tmp/new"],
  );
  // Flags and their values are no positional words; a relative path is the working directory's.
  assert.deepEqual(
    flagNeeds(
      ["sessions", "--store", "sqlite", "export", "--format", "md", "abc", "out.txt"],
      context,
    ).readWrite,
    ["/work/app/out.txt"],
  );
  assert.deepEqual(flagNeeds(["sessions", "export", "abc"], context).readWrite, []);
});

Deno.test("sessions import FILE: the file is read, not written", () => {
  const needs = flagNeeds(["sessions", "import", "~/.pi/agent/sessions/x.jsonl"], context);
  assert.deepEqual(needs.readOnly, ["/home/ada/.pi/agent/sessions/x.jsonl"]);
  assert.deepEqual(needs.readWrite, []);
});

Deno.test("the same words in a prompt grant nothing", () => {
  const needs = flagNeeds(["-p", "sessions", "export", "abc", "/etc/passwd"], context);
  assert.deepEqual(needs.readWrite, []);
  assert.deepEqual(flagNeeds(["-p", "sessions", "import", "/etc/shadow"], context).readOnly, []);
});
