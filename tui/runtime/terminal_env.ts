/**
 * What the environment says about the terminal, hiding `Deno.env` and
 * `Deno.Command`: the variables naming it, and tmux's passthrough option.
 *
 * @module
 */
import { TERMINAL_HINT_VARIABLES, type TerminalHints } from "../image_support.ts";
import { readVariable } from "./read_variable.ts";

/** Whether `tmux` may be run without a permission prompt. */
function mayRunTmux(): boolean {
  return Deno.permissions.querySync({ name: "run", command: "tmux" }).state === "granted";
}

/**
 * The process's {@linkcode TerminalHints}.
 *
 * @example
 * ```ts
 * import { terminalHints } from "./terminal_env.ts";
 * console.assert(typeof terminalHints() === "object");
 * ```
 */
export function terminalHints(): TerminalHints {
  return Object.fromEntries(TERMINAL_HINT_VARIABLES.map((name) => [name, readVariable(name)]));
}

/**
 * Whether the tmux pane we run in passes escape sequences to the outer
 * terminal (`allow-passthrough` on or all, tmux 3.3 and later): asks
 * `tmux show -pAv allow-passthrough`. False when tmux cannot be run or the
 * option is unknown (older tmux).
 *
 * @example
 * ```ts ignore
 * import { tmuxPassthrough } from "./terminal_env.ts";
 * console.log(await tmuxPassthrough());
 * ```
 */
export async function tmuxPassthrough(): Promise<boolean> {
  const socket = readVariable("TMUX");
  if (socket === undefined || !mayRunTmux()) return false;
  const pane = readVariable("TMUX_PANE");
  const command = new Deno.Command("tmux", {
    args: ["show", "-pAv", ...(pane === undefined ? [] : ["-t", pane]), "allow-passthrough"],
    env: { TMUX: socket },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  });
  try {
    const { success, stdout } = await command.output();
    const value = new TextDecoder().decode(stdout).trim();
    return success && (value === "on" || value === "all");
  } catch {
    return false;
  }
}
