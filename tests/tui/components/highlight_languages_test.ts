import assert from "node:assert/strict";
import { CodeHighlighter } from "../../../tui/components/code_highlight.ts";
import {
  languageName,
  LANGUAGES,
  loadLanguages,
  readyHighlighter,
} from "../../../tui/components/highlight_languages.ts";
import { Markdown } from "../../../tui/components/markdown.ts";
import { COLOR, plain } from "./helpers.ts";

/** The languages a definition embeds (`subLanguage`), found anywhere in it. */
function embedded(definition: unknown): string[] {
  const found = new Set<string>();
  const seen = new Set<unknown>();
  const stack = [definition];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    seen.add(value);
    for (const [key, inner] of Object.entries(value)) {
      if (key === "subLanguage") {
        for (const name of [inner].flat()) if (typeof name === "string") found.add(name);
      }
      stack.push(inner);
    }
  }
  return [...found].sort();
}

Deno.test("highlight languages: names and aliases resolve in any case; unknown ones do not", () => {
  assert.equal(languageName("TS"), "typescript");
  assert.equal(languageName("html"), "xml");
  assert.equal(languageName("hs"), "haskell");
  assert.equal(languageName("klingon"), undefined);
});

const HASKELL = 'main :: IO ()\nmain = putStrLn "hi"';

Deno.test("highlight languages: a language loads on first use and then colours the code", async () => {
  // Haskell is in neither the core nor the "common" build the chat loaded before.
  assert.equal(readyHighlighter("haskell"), undefined);
  const highlighter = new CodeHighlighter("hs", COLOR);
  const lines = HASKELL.split("\n");
  const first = highlighter.update(lines, lines.length);
  assert.deepEqual(first.lines.map(plain), lines);
  assert.equal(first.settled, 0, "nothing is final while the language loads");
  await loadLanguages(["haskell"]);
  const next = highlighter.update(lines, lines.length);
  assert.deepEqual(next.lines.map(plain), lines);
  const string = next.lines[1]!;
  assert.ok(string.includes("\x1b[38;5;"), `coloured once loaded: ${JSON.stringify(string)}`);
  assert.notEqual(next.lines.join("\n"), first.lines.join("\n"));
  assert.equal(loadLanguages(["HASKELL", "hs"]), undefined, "loaded once");
});

Deno.test("highlight languages: loading HTML loads the CSS and JavaScript it embeds", async () => {
  await loadLanguages(["html"]);
  assert.ok(readyHighlighter("css") !== undefined);
  assert.ok(readyHighlighter("javascript") !== undefined);
  const markdown = new Markdown("```html\n<script>const a = 1;</script>\n```", { theme: COLOR });
  const row = markdown.render(60).find((line) => plain(line).includes("const"))!;
  assert.ok(row.includes("\x1b[38;5;176mconst"), `script coloured: ${JSON.stringify(row)}`);
});

Deno.test("highlight languages: an unknown language stays plain and loads nothing", () => {
  assert.equal(loadLanguages(["klingon"]), undefined);
  const { lines, settled } = new CodeHighlighter("klingon", COLOR).update(["a", "b"], 2);
  assert.deepEqual(lines.map(plain), ["a", "b"]);
  assert.equal(settled, 1);
});

// Last: the full build registers every language on the core's instance, which the lazy loading uses.
Deno.test("highlight languages: the table names every language of the full build, its aliases and what it embeds", async () => {
  const { default: full } = await import("highlight.js");
  const expected = full.listLanguages().sort().map((name) => {
    const definition = full.getLanguage(name)!;
    return [name, definition.aliases ?? [], embedded(definition).filter((n) => n !== name)];
  });
  const table = Object.entries(LANGUAGES).map((
    [name, [aliases, inside]],
  ) => [name, aliases, inside]);
  assert.deepEqual(table, expected);
});
