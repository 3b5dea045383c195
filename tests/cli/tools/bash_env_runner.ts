/**
 * Runs one bash tool call (or, with `shell`, a user's `!command`) and prints
 * its text, for tests that give it an environment of its own: the
 * restricted permissions of `deno task panto`, or API keys set, which must
 * not be set in the test process (test files run in parallel there).
 *
 * Usage: deno run … bash_env_runner.ts <root> <command> [hidden,names] [shell]
 */
import { bashTool } from "../../../cli/tools/bash.ts";
import { runShellCommand } from "../../../cli/controller/shell_command.ts";

const [root, command, hidden = "ANTHROPIC_API_KEY", mode] = Deno.args;
const hiddenEnv = hidden.split(",");
const signal = new AbortController().signal;
if (mode === "shell") {
  const result = await runShellCommand(command!, root!, 10, signal, hiddenEnv);
  console.log(`${result.failed ? "failed" : "ok"}\n${result.output}`);
} else {
  const output = await bashTool({ root: root!, hiddenEnv }).execute(
    { command: command! },
    { signal, callId: "env" },
  );
  const parts = Array.isArray(output) ? output : output.parts;
  console.log(parts.map((part) => (part.type === "text" ? part.text : "")).join(""));
}
