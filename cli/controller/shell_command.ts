import type { ResultPart } from "@panto/lib";
import { bashTool } from "@panto/lib/tools";

/** What a `!command` printed. */
export interface ShellResult {
  /** True when the command failed (non-zero exit, timeout, abort). */
  failed: boolean;
  /** Output as the bash tool reports it (truncated to the tail, with the exit code). */
  output: string;
}

/**
 * How a `!command` the user typed is treated.
 *
 * @example `!!ls`: shown in the chat, never sent to the model
 * ```ts ignore
 * import type { ShellOptions } from "./shell_command.ts";
 * await controller.runShell("ls", { excludeFromContext: true } satisfies ShellOptions);
 * ```
 */
export interface ShellOptions {
  /** A `!!command` (as pi): its output is shown to the user, never sent to the model. */
  excludeFromContext?: boolean;
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

/** A `!command` or `!!command` line as typed. */
export interface ShellLine {
  /** The command after the `!` or `!!` (empty when only the prefix was typed). */
  command: string;
  /** Typed with `!!`: the output is shown, not sent to the model. */
  excludeFromContext: boolean;
}

/**
 * Reads a typed line that starts with `!` (output goes with the next prompt)
 * or `!!` (output only shown, as pi).
 *
 * @example
 * ```ts
 * import { shellLine } from "./shell_command.ts";
 * console.assert(shellLine("!! git status")?.command === "git status");
 * console.assert(shellLine("!!git status")?.excludeFromContext === true);
 * console.assert(shellLine("!ls")?.excludeFromContext === false);
 * console.assert(shellLine("ls") === undefined);
 * ```
 *
 * @param text The line, trimmed.
 * @returns The command and how it is treated, or `undefined` for a line that is no shell command.
 */
export function shellLine(text: string): ShellLine | undefined {
  if (!text.startsWith("!")) return undefined;
  const excludeFromContext = text.startsWith("!!");
  return { command: text.slice(excludeFromContext ? 2 : 1).trim(), excludeFromContext };
}
