import assert from "node:assert/strict";
import type { Component } from "../../../../tui/component.ts";
import { ToolUse } from "../../../../cli/chat/components/tool_use.ts";
import type { ToolUseData } from "../../../../cli/chat/components/tool_use.ts";
import { UI_EVENTS, UiEvents } from "../../../../cli/chat/ui_events.ts";
import { PLAIN } from "../../../tui/components/helpers.ts";

function fixed(text: string): Component {
  return { render: () => [text], firstLineChanged: () => null, invalidate: () => {} };
}

function tool(data: ToolUseData): ToolUse {
  return new ToolUse(data, { theme: PLAIN });
}

Deno.test("ui events: without handlers create returns the default", () => {
  const events = new UiEvents();
  const data = { callId: "c1", name: "bash" };
  const component = events.create(UI_EVENTS.tool, data, () => tool(data));
  assert.ok(component instanceof ToolUse);
  assert.equal((component as ToolUse).callId, "c1");
});

Deno.test("ui events: a handler wraps the current component (the documented pattern)", () => {
  const events = new UiEvents();
  events.on("tool", (e) => {
    if (e.data.name !== "skill") return;
    const inner = e.getComponent();
    assert.ok(inner !== undefined);
    e.setComponent({
      render: (width) => ["[skill]", ...inner.render(width)],
      firstLineChanged: () => inner.firstLineChanged(),
      invalidate: () => inner.invalidate(),
    });
  });
  const skillData = { callId: "s", name: "skill" };
  const skill = events.create("tool", skillData, () => tool(skillData));
  assert.deepEqual(skill.render(40), ["[skill]", "○ skill"]);
  const otherData = { callId: "o", name: "read" };
  assert.ok(events.create("tool", otherData, () => tool(otherData)) instanceof ToolUse);
});

Deno.test("ui events: handlers run in registration order and the last setComponent wins", () => {
  const events = new UiEvents();
  const order: string[] = [];
  events.on("tool", (e) => {
    order.push(`first saw ${e.getComponent()?.render(10)[0]}`);
    e.setComponent(fixed("A"));
  });
  events.on("tool", (e) => {
    order.push(`second saw ${e.getComponent()?.render(10)[0]}`);
    e.setComponent(fixed("B"));
  });
  const component = events.create("tool", { callId: "c", name: "x" }, () => fixed("default"));
  assert.deepEqual(order, ["first saw default", "second saw A"]);
  assert.deepEqual(component.render(10), ["B"]);
});

Deno.test("ui events: the default is built lazily and at most once", () => {
  let built = 0;
  const makeDefault = () => {
    built++;
    return fixed("default");
  };
  const replacing = new UiEvents();
  replacing.on("tool", (e) => e.setComponent(fixed("custom")));
  replacing.create("tool", { callId: "c", name: "x" }, makeDefault);
  assert.equal(built, 0, "a handler that replaces outright never needs the default");

  const asking = new UiEvents({ onError: () => {} });
  asking.on("tool", (e) => {
    e.getComponent();
    e.getComponent();
  });
  asking.on("tool", () => {
    throw new Error("rolled back, but the default already exists");
  });
  const component = asking.create("tool", { callId: "c", name: "x" }, makeDefault);
  assert.equal(built, 1);
  assert.deepEqual(component.render(10), ["default"]);
});

Deno.test("ui events: parallel tool calls each get their own instance", () => {
  const events = new UiEvents();
  const seen: string[] = [];
  events.on("tool", (e) => void seen.push(e.data.callId));
  const a = events.create(
    "tool",
    { callId: "a", name: "read" },
    () => tool({ callId: "a", name: "read" }),
  );
  const b = events.create(
    "tool",
    { callId: "b", name: "read" },
    () => tool({ callId: "b", name: "read" }),
  );
  assert.notEqual(a, b);
  (a as ToolUse).setResult("only a");
  assert.deepEqual(b.render(30), ["○ read"]);
  assert.deepEqual(seen, ["a", "b"]);
});

Deno.test("ui events: a throwing handler is reported and its changes discarded", () => {
  const errors: [unknown, string][] = [];
  const events = new UiEvents({ onError: (error, name) => errors.push([error, name]) });
  events.on("tool", (e) => e.setComponent(fixed("kept")));
  events.on("tool", (e) => {
    e.setComponent(fixed("discarded"));
    throw new Error("extension bug");
  });
  const after: string[] = [];
  events.on("tool", (e) => void after.push(e.getComponent()?.render(10)[0] ?? ""));
  const component = events.create("tool", { callId: "c", name: "x" }, () => fixed("default"));
  assert.deepEqual(component.render(10), ["kept"]);
  assert.deepEqual(after, ["kept"], "later handlers still run and see the last good choice");
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.[1], "tool");
  assert.match(String(errors[0]?.[0]), /extension bug/);
});

Deno.test("ui events: an async handler is reported (handlers must choose before the first paint)", async () => {
  const errors: unknown[] = [];
  const events = new UiEvents({ onError: (error) => errors.push(error) });
  events.on("tool", async () => {
    await Promise.resolve();
    throw new Error("late failure");
  });
  events.create("tool", { callId: "c", name: "x" }, () => fixed("d"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(errors.length, 2);
  assert.match(String(errors[0]), /returned a promise/);
  assert.match(String(errors[1]), /late failure/);
});

Deno.test("ui events: emit of a custom event mounts the chosen component; off unsubscribes", () => {
  const mounted: [string, unknown][] = [];
  const events = new UiEvents({
    mount: (component, name) => mounted.push([name, component.render(20)]),
  });
  assert.equal(events.emit("status-panel", { n: 1 }), undefined, "no handler, nothing to mount");
  const off = events.on<{ n: number }>(
    "status-panel",
    (e) => e.setComponent(fixed(`panel ${e.data.n}`)),
  );
  events.emit("status-panel", { n: 2 });
  off();
  events.emit("status-panel", { n: 3 });
  assert.deepEqual(mounted, [["status-panel", ["panel 2"]]]);
});

Deno.test("ui events: a handler may emit another event (nesting)", () => {
  const mounted: string[] = [];
  const events = new UiEvents({
    mount: (component) => mounted.push(component.render(10)[0] ?? ""),
  });
  events.on("inner", (e) => e.setComponent(fixed("inner")));
  events.on("tool", () => void events.emit("inner", {}));
  events.create("tool", { callId: "c", name: "x" }, () => fixed("d"));
  assert.deepEqual(mounted, ["inner"]);
});
