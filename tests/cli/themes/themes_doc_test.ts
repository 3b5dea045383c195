/**
 * docs/themes.md's worked example stays true: its theme file loads with the
 * colours the page describes, and its mistake gives the message it quotes.
 */
import assert from "node:assert/strict";
import { parseThemeFile } from "@panto/tui";

const page = await Deno.readTextFile(new URL("../../../docs/themes.md", import.meta.url));

/** The first fenced block of `language` after `heading`, dedented. */
function blockAfter(heading: string, language: string): string {
  const from = page.indexOf(heading);
  assert.ok(from >= 0, heading);
  const match = new RegExp("( *)```" + language + "\\n([\\s\\S]*?)\\n *```").exec(page.slice(from));
  assert.ok(match, `a ${language} block after ${heading}`);
  const indent = match[1]!.length;
  return match[2]!.split("\n").map((line) => line.slice(indent)).join("\n");
}

Deno.test("docs/themes.md: the ocean example has the colours the page describes", () => {
  const palette = parseThemeFile(blockAfter("## Worked example", "json"), "ocean.json");
  assert.equal(palette.colors.accent, "#1188cc");
  assert.equal(palette.colors.mdLink, "#1188cc");
  assert.equal(palette.colors.mdListBullet, "#1188cc");
  assert.equal(palette.colors.mdHeading, "#ffaa00");
  assert.equal(palette.backgrounds.userMessage, "#102030");
});

Deno.test("docs/themes.md: the example's mistake gives the message the page quotes", () => {
  const broken = blockAfter("## Worked example", "json").replace(
    '"accent": "sea"',
    '"accent": "#1188c"',
  );
  const quoted = blockAfter("3. Make a mistake", "").trim();
  assert.throws(() => parseThemeFile(broken, "~/.panto/themes/ocean.json"), (error: Error) => {
    assert.equal(error.message, quoted);
    return true;
  });
});
