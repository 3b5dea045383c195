/**
 * Runs one bash tool call (or, with `shell`, a user's `!command`) and prints
 * its text, after withholding the named variables as the program does at
 * start: for tests that set API keys, which must not be set in the test
 * process (test files run in parallel there).
 *
 * Usage: deno run … bash_env_runner.ts <root> <command> [withheld,names] [shell]
 */
import { bashTool } from "../../../lib/tools/bash.ts";
import { runShellCommand } from "../../../cli/controller/shell_command.ts";
import { withholdFromCommands } from "../../../cli/shared/env.ts";

const [root, command, withheld = "ANTHROPIC_API_KEY", mode] = Deno.args;
withholdFromCommands(withheld.split(","));
const signal = new AbortController().signal;
if (mode === "shell") {
  const result = await runShellCommand(command!, root!, 10, signal);
  console.log(`${result.failed ? "failed" : "ok"}\n${result.output}`);
} else {
  const output = await bashTool({ root: root! }).execute(
    { command: command! },
    { signal, callId: "env" },
  );
  const parts = Array.isArray(output) ? output : output.parts;
  console.log(parts.map((part) => (part.type === "text" ? part.text : "")).join(""));
}
