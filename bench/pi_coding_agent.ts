/**
 * pi's coding agent package (`@mariozechner/pi-coding-agent`), for the
 * benches that measure panto beside it; kept out of the root import map for
 * the reason given in `pi_tui.ts`. `cli_harness.ts` reads the pinned
 * specifier from this file to run pi's program.
 *
 * @module
 */
export * from "npm:@mariozechner/pi-coding-agent@0.73.1";
