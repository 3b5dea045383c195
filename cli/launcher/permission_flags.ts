/**
 * The environment variables panto's own code reads besides the key variables
 * of its config: its own, the terminal's and the locale's, the user's editor
 * and display (for ctrl+g, pasting images and /copy), and whether the
 * session is remote or on Termux (/copy picks the clipboard by them). The processes panto starts
 * are not limited to these: they inherit the user's whole environment less
 * the withheld variables (see `withholdFromCommands` and docs/security.md).
 */
export const BASE_VARIABLES: readonly string[] = [
  "PANTO_HOME",
  "PANTO_CWD",
  "PANTO_KEY_HANDOFF",
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "COLORTERM",
  // What the terminal is, to know whether it draws images (tui/image_support.ts).
  "TERM_PROGRAM",
  "LC_TERMINAL",
  "KITTY_WINDOW_ID",
  "TMUX",
  "TMUX_PANE",
  "NO_COLOR",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
  "VISUAL",
  "EDITOR",
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "XDG_RUNTIME_DIR",
  "XAUTHORITY",
  "SSH_CONNECTION",
  "SSH_CLIENT",
  "MOSH_CONNECTION",
  "TERMUX_VERSION",
];

/** What the program may touch. */
export interface Grants {
  /** Paths read and written. */
  readWrite: readonly string[];
  /** Paths only read. */
  readOnly: readonly string[];
  /** Environment variables read (others read as unset). */
  variables: readonly string[];
}

/**
 * The `deno run` permission flags for `grants`: reads and writes of exactly
 * those paths, those variables (`--ignore-env` makes the rest read as unset),
 * network and subprocesses, and `--no-prompt` so a missing grant is an error
 * panto explains, never a prompt.
 *
 * @param grants What to allow.
 * @returns The flags.
 *
 * @example
 * ```ts
 * import { permissionFlags } from "./permission_flags.ts";
 * const flags = permissionFlags({ readWrite: ["/work"], readOnly: ["/AGENTS.md"], variables: ["HOME"] });
 * console.assert(flags.includes("--allow-read=/work,/AGENTS.md") && flags.includes("--allow-write=/work"));
 * ```
 */
export function permissionFlags(grants: Grants): string[] {
  return [
    "--no-prompt",
    ...allow("read", [...grants.readWrite, ...grants.readOnly]),
    ...allow("write", grants.readWrite),
    ...allow("env", grants.variables),
    "--ignore-env",
    "--allow-net",
    "--allow-run",
  ];
}

/**
 * `--allow-KIND=a,b` for the items, none for no items (an empty list would
 * allow everything). Deno splits the list at commas and has no escape for one
 * inside a path: such a path cannot be granted, and using it gets panto's
 * message instead.
 */
function allow(kind: string, items: readonly string[]): string[] {
  const list = [...new Set(items)].filter((item) => item !== "" && !item.includes(","));
  return list.length === 0 ? [] : [`--allow-${kind}=${list.join(",")}`];
}
