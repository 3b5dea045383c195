/**
 * Writes `cli/export/highlight_css.ts` from the pinned highlight.js's GitHub
 * styles, which HTML exports inline (an export must read offline, so the CSS
 * goes in the file): `deno run -A scripts/highlight_css.ts`. A test checks
 * the written file still matches the package.
 *
 * @module
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * A style sheet of the pinned highlight.js.
 *
 * @param name The style's file name (`github.min.css`).
 * @returns Its text.
 */
export async function highlightStyle(name: string): Promise<string> {
  return (await Deno.readTextFile(require.resolve(`highlight.js/styles/${name}`))).trim();
}

if (import.meta.main) {
  const target = new URL("../cli/export/highlight_css.ts", import.meta.url);
  const light = await highlightStyle("github.min.css");
  const dark = await highlightStyle("github-dark.min.css");
  await Deno.writeTextFile(
    target,
    `// Written by scripts/highlight_css.ts from highlight.js's styles: do not edit.

/**
 * highlight.js's GitHub style (light), inlined in HTML exports.
 *
 * @example
 * \`\`\`ts
 * import { HIGHLIGHT_LIGHT_CSS } from "./highlight_css.ts";
 * console.assert(HIGHLIGHT_LIGHT_CSS.includes(".hljs"));
 * \`\`\`
 */
export const HIGHLIGHT_LIGHT_CSS = ${JSON.stringify(light)};

/**
 * highlight.js's GitHub style (dark), inlined in HTML exports for dark color schemes.
 *
 * @example
 * \`\`\`ts
 * import { HIGHLIGHT_DARK_CSS } from "./highlight_css.ts";
 * console.assert(HIGHLIGHT_DARK_CSS.includes(".hljs"));
 * \`\`\`
 */
export const HIGHLIGHT_DARK_CSS = ${JSON.stringify(dark)};
`,
  );
}
