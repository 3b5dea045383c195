/**
 * How many colours the terminal shows. Most terminals take 24-bit colour;
 * the few that do not get `#rrggbb` theme colours as their nearest
 * 256-colour palette entry, so a theme written in hex (as pi's are) still
 * looks right there.
 *
 * @module
 */

/** `truecolor`: 24-bit colour; `256`: the xterm 256-colour palette only. */
export type ColorDepth = "truecolor" | "256";

/**
 * The terminal's colour depth, from its environment, as pi decides it:
 * `COLORTERM=truecolor` (or `24bit`) is 24-bit; otherwise macOS Terminal
 * (`TERM_PROGRAM=Apple_Terminal`), the Linux console (`TERM=linux`), `dumb`
 * and GNU screen (`TERM=screen…`) are 256-colour; anything else is 24-bit.
 *
 * @param env Reads an environment variable.
 * @returns The depth.
 *
 * @example
 * ```ts
 * import { detectColorDepth } from "@panto/tui";
 * const env = new Map([["TERM_PROGRAM", "Apple_Terminal"]]);
 * console.assert(detectColorDepth((name) => env.get(name)) === "256");
 * console.assert(detectColorDepth(() => undefined) === "truecolor");
 * ```
 */
export function detectColorDepth(env: (name: string) => string | undefined): ColorDepth {
  const colorterm = env("COLORTERM");
  if (colorterm === "truecolor" || colorterm === "24bit") return "truecolor";
  const term = env("TERM") ?? "";
  const limited = env("TERM_PROGRAM") === "Apple_Terminal" || term === "linux" ||
    term === "dumb" || term === "screen" || term.startsWith("screen-") ||
    term.startsWith("screen.");
  return limited ? "256" : "truecolor";
}
