import assert from "node:assert/strict";
import { Text } from "../../../tui/components/text.ts";
import { assertFits } from "./helpers.ts";

Deno.test("text: wraps, prefixes and styles each source line", () => {
  const text = new Text("alpha beta gamma\nδ", {
    prefix: "> ",
    style: (line) => line.toUpperCase(),
  });
  assert.deepEqual(text.render(12), ["> ALPHA BETA", "> GAMMA", "> Δ"]);
  assertFits(text.render(12), 12);
});

Deno.test("text: append re-wraps only the last line and reports it", () => {
  const text = new Text("one\ntwo");
  text.render(10);
  text.append(" more\nthree");
  assert.equal(text.firstLineChanged(), 1);
  assert.deepEqual(text.render(10), ["one", "two more", "three"]);
  assert.equal(text.firstLineChanged(), null);
  text.setText("one\nTWO");
  assert.equal(text.firstLineChanged(), 1);
  assert.deepEqual(text.render(10), ["one", "TWO"]);
  text.setText("one\nTWO");
  assert.equal(text.firstLineChanged(), null, "same text is no change");
});
