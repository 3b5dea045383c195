/** The highlight.js styles inlined in HTML exports are the pinned package's (scripts/highlight_css.ts writes them). */
import assert from "node:assert/strict";
import { HIGHLIGHT_DARK_CSS, HIGHLIGHT_LIGHT_CSS } from "../../../cli/export/highlight_css.ts";
import { highlightStyle } from "../../../scripts/highlight_css.ts";

Deno.test("the inlined highlight.js styles match the package: run scripts/highlight_css.ts after an upgrade", async () => {
  assert.equal(HIGHLIGHT_LIGHT_CSS, await highlightStyle("github.min.css"));
  assert.equal(HIGHLIGHT_DARK_CSS, await highlightStyle("github-dark.min.css"));
});
