import assert from "node:assert/strict";
import type { Component } from "../../tui/component.ts";
import { Container, lastRenderCut } from "../../tui/container.ts";
import { Lines } from "./test_lines.ts";

Deno.test("Container: stacks children and reports no change when clean", () => {
  const stack = new Container();
  stack.addChild(new Lines(["a", "b"]));
  stack.addChild(new Lines(["c"]));
  assert.equal(stack.firstLineChanged(), 0, "never rendered");
  assert.deepEqual([...stack.render(10)], ["a", "b", "c"]);
  assert.equal(stack.firstLineChanged(), null);
  stack.render(10);
  assert.equal(lastRenderCut(stack), 3, "nothing changed: the cut is the length");
});

Deno.test("Container: re-renders only dirty children; the cut is the first changed line", () => {
  const stack = new Container();
  const top = new Lines(["t0", "t1"]);
  const middle = new Lines(["m0", "m1"]);
  const bottom = new Lines(["b0"]);
  for (const child of [top, middle, bottom]) stack.addChild(child);
  stack.render(10);
  middle.edit(1, "M1");
  assert.equal(stack.firstLineChanged(), 3);
  assert.deepEqual([...stack.render(10)], ["t0", "t1", "m0", "M1", "b0"]);
  assert.deepEqual([top.renders, middle.renders, bottom.renders], [1, 2, 1]);
  assert.equal(lastRenderCut(stack), 3);
});

Deno.test("Container: a length change copies cached lines below without re-rendering them", () => {
  const stack = new Container();
  const growing = new Lines(["g0"]);
  const footer = new Lines(["footer"]);
  stack.addChild(growing);
  stack.addChild(footer);
  stack.render(10);
  growing.append("g1", "g2");
  assert.deepEqual([...stack.render(10)], ["g0", "g1", "g2", "footer"]);
  assert.equal(footer.renders, 1, "moved, not re-rendered");
  assert.equal(lastRenderCut(stack), 1);
  growing.set(["g0"]);
  assert.deepEqual([...stack.render(10)], ["g0", "footer"]);
  assert.equal(lastRenderCut(stack), 1);
});

Deno.test("Container: adding and removing children", () => {
  const stack = new Container();
  const a = new Lines(["a"]);
  const b = new Lines(["b"]);
  const c = new Lines(["c"]);
  stack.addChild(a);
  stack.addChild(c);
  stack.render(10);
  stack.insertChild(1, b);
  assert.equal(stack.firstLineChanged(), 1);
  assert.deepEqual([...stack.render(10)], ["a", "b", "c"]);
  assert.ok(stack.removeChild(a));
  assert.ok(!stack.removeChild(a));
  assert.equal(stack.firstLineChanged(), 0);
  assert.deepEqual([...stack.render(10)], ["b", "c"]);
  stack.removeChild(c);
  assert.deepEqual([...stack.render(10)], ["b"]);
  assert.equal(lastRenderCut(stack), 1);
  stack.clear();
  assert.deepEqual([...stack.render(10)], []);
  assert.deepEqual(stack.children, []);
});

Deno.test("Container: a width change re-renders everything", () => {
  const stack = new Container();
  const child = new Lines(["x"]);
  stack.addChild(child);
  stack.render(10);
  stack.render(11);
  assert.equal(child.renders, 2);
  assert.equal(lastRenderCut(stack), 0);
});

Deno.test("Container: nested containers splice from the inner cut", () => {
  const outer = new Container();
  const inner = new Container();
  const first = new Lines(["i0", "i1"]);
  const second = new Lines(["i2"]);
  inner.addChild(first);
  inner.addChild(second);
  outer.addChild(new Lines(["head"]));
  outer.addChild(inner);
  outer.addChild(new Lines(["tail"]));
  outer.render(10);
  second.append("i3");
  assert.equal(outer.firstLineChanged(), 4);
  assert.deepEqual([...outer.render(10)], ["head", "i0", "i1", "i2", "i3", "tail"]);
  assert.equal(lastRenderCut(outer), 4);
  assert.equal(first.renders, 1);
});

Deno.test("Container: an over-cautious or wrong hint from a leaf is corrected by diffing", () => {
  let lines = ["a", "b", "c"];
  let hint: number | null = 0;
  const liar: Component = {
    render: () => {
      hint = null;
      return [...lines];
    },
    firstLineChanged: () => hint,
    invalidate: () => {
      hint = 0;
    },
  };
  const stack = new Container();
  stack.addChild(liar);
  stack.render(10);
  lines = ["A", "b", "c"];
  hint = 2; // wrong: line 0 changed
  assert.deepEqual([...stack.render(10)], ["A", "b", "c"]);
  assert.equal(lastRenderCut(stack), 0);
  hint = 0; // over-cautious: nothing changed
  stack.render(10);
  assert.equal(lastRenderCut(stack), 3);
});

Deno.test("Container: lineOf says where a child started at the last render", () => {
  const stack = new Container();
  const first = new Lines(["a", "b"]);
  const second = new Lines(["c"]);
  stack.addChild(first);
  stack.addChild(second);
  assert.equal(stack.lineOf(second), null, "not drawn yet");
  stack.render(10);
  assert.equal(stack.lineOf(first), 0);
  assert.equal(stack.lineOf(second), 2);
  first.append("b2", "b3");
  stack.render(10);
  assert.equal(stack.lineOf(second), 4, "moved down by the lines added above");
  assert.equal(stack.lineOf(new Lines(["x"])), null, "not a child");
});
