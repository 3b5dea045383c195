/**
 * Runs one bash tool call and prints its text, for tests that start it under
 * the restricted permissions of `deno task panto`.
 *
 * Usage: deno run … bash_env_runner.ts <root> <command>
 */
import { bashTool } from "../../../cli/tools/bash.ts";

const [root, command] = Deno.args;
const output = await bashTool({ root: root!, hiddenEnv: ["ANTHROPIC_API_KEY"] }).execute(
  { command: command! },
  { signal: new AbortController().signal, callId: "env" },
);
const parts = Array.isArray(output) ? output : output.parts;
console.log(parts.map((part) => (part.type === "text" ? part.text : "")).join(""));
