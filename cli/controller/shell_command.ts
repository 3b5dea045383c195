import type { ResultPart } from "@panto/lib";
import { bashTool } from "../tools/bash.ts";

/** What a `!command` printed. */
export interface ShellResult {
  /** True when the command failed (non-zero exit, timeout, abort). */
  failed: boolean;
  /** Output as the bash tool reports it (truncated to the tail, with the exit code). */
  output: string;
}

/**
 * Runs a `!command` typed by the user through the bash tool, so it gets the
 * same timeout, truncation and process-group kill on abort.
 *
 * @param command The command line.
 * @param cwd Where to run it.
 * @param timeoutSeconds The bash timeout.
 * @param signal Kills it.
 * @returns Whether it failed, and its output.
 */
export async function runShellCommand(
  command: string,
  cwd: string,
  timeoutSeconds: number,
  signal: AbortSignal,
): Promise<ShellResult> {
  const output = await bashTool({ root: cwd, timeoutSeconds }).execute({ command }, {
    signal,
    callId: "shell",
  });
  const parts: ResultPart[] = Array.isArray(output) ? output : output.parts;
  const failed = !Array.isArray(output) && output.isError === true;
  return { failed, output: parts.map((p) => (p.type === "text" ? p.text : "")).join("\n") };
}
