import assert from "node:assert/strict";
import { detectColorDepth } from "../../tui/color_depth.ts";

function depth(vars: Record<string, string>): string {
  return detectColorDepth((name) => vars[name]);
}

Deno.test("colour depth: 24-bit unless the terminal is one known to lack it", () => {
  assert.equal(depth({}), "truecolor", "unknown: most terminals have it");
  assert.equal(depth({ TERM: "xterm-256color" }), "truecolor");
  assert.equal(depth({ TERM_PROGRAM: "Apple_Terminal" }), "256");
  for (const term of ["linux", "dumb", "screen", "screen-256color", "screen.xterm-256color"]) {
    assert.equal(depth({ TERM: term }), "256", term);
  }
  assert.equal(depth({ TERM: "screen-256color", COLORTERM: "truecolor" }), "truecolor");
  assert.equal(depth({ TERM_PROGRAM: "Apple_Terminal", COLORTERM: "24bit" }), "truecolor");
});
