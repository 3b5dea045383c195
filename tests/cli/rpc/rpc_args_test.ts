import assert from "node:assert/strict";
import { parseArgs } from "../../../cli/args.ts";
import { UsageError } from "../../../cli/errors.ts";

Deno.test("--mode rpc takes the chat's flags", () => {
  const args = parseArgs(["--mode", "rpc", "-m", "smart", "--no-session"]);
  assert.ok(args.command === "chat");
  assert.deepEqual([args.mode, args.print, args.model, args.noSession], [
    "rpc",
    false,
    "smart",
    true,
  ]);
});

Deno.test("--mode rpc refuses -p and prompt words: prompts come as commands", () => {
  for (const argv of [["--mode", "rpc", "-p"], ["--mode", "rpc", "hello"]]) {
    assert.throws(() => parseArgs(argv), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /--mode rpc reads its prompts as commands on stdin: drop -p/);
      return true;
    });
  }
});
