import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, type AgentEvent } from "@panto/lib";
import type { Component } from "@panto/tui";
import { ToolUse } from "../../../cli/chat/components/tool_use.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { callTool, kittyCtrlShift, makeHarness } from "./host_harness.ts";

const WORD_COUNT = fileURLToPath(
  new URL("../../../examples/extensions/word_count.ts", import.meta.url),
);
const TOOL_BADGE = fileURLToPath(
  new URL("../../../examples/extensions/tool_badge.ts", import.meta.url),
);

async function withProject(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto_example_" }));
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("word_count example: the model calls its tool through a real agent", async () => {
  await withProject(async (root) => {
    await Deno.writeTextFile(join(root, "notes.txt"), "alpha beta\ngamma\n");
    const harness = makeHarness({ cwd: root });
    await harness.host.load([WORD_COUNT]);
    assert.deepEqual(harness.reports, []);

    const server = await FakeLlmServer.start();
    try {
      server.enqueue(
        {
          kind: "turn",
          blocks: [{
            type: "tool_use",
            id: "call_1",
            name: "word_count",
            input: { path: "notes.txt" },
          }],
        },
        { kind: "turn", blocks: [{ type: "text", text: "Three words." }] },
      );
      const agent = new Agent({
        config: {
          provider: {
            api: "anthropic-messages",
            baseUrl: server.anthropicBaseUrl,
            model: "fake-model",
            reasoning: "off",
          },
        },
      });
      for (const tool of harness.tools.values()) agent.registerTool(tool);
      const events: AgentEvent[] = [];
      for await (const event of agent.run("How many words are in notes.txt?")) events.push(event);
      const done = events.find((e) => e.type === "tool_dispatch_complete");
      assert.ok(done?.type === "tool_dispatch_complete");
      assert.equal(done.isError, false);
      assert.match(JSON.stringify(done.result), /notes\.txt: 3 words, 2 lines/);
      assert.match(JSON.stringify(server.requests[1]!.body), /notes\.txt: 3 words, 2 lines/);
    } finally {
      await server.close();
    }
  });
});

Deno.test("word_count example: the tool refuses paths outside the working directory", async () => {
  await withProject(async (root) => {
    await Deno.mkdir(join(root, "project"));
    await Deno.writeTextFile(join(root, "secret.txt"), "top secret");
    await Deno.symlink(join(root, "secret.txt"), join(root, "project", "link.txt"));
    const harness = makeHarness({ cwd: join(root, "project") });
    await harness.host.load([WORD_COUNT]);
    const tool = harness.tools.get("word_count")!;
    for (const path of ["../secret.txt", join(root, "secret.txt"), "link.txt"]) {
      await assert.rejects(
        Promise.resolve(callTool(tool, { path })),
        new RegExp(`${path.replaceAll(".", "\\.")} is outside the working directory`),
      );
    }
  });
});

Deno.test("word_count example: /wc counts the words of the last assistant message", async () => {
  const harness = makeHarness();
  await harness.host.load([WORD_COUNT]);
  assert.equal(harness.host.commands().get("wc")?.extension, "word_count");

  await harness.host.runCommand("wc", "");
  assert.deepEqual(harness.notifications, [
    { text: "/wc: there is no assistant message yet", level: "warning" },
  ]);

  const timestamp = new Date().toISOString();
  harness.conversation.push(
    { role: "user", content: [{ type: "text", text: "one two" }], timestamp },
    {
      role: "assistant",
      content: [{ type: "text", text: "first answer" }],
      timestamp,
    },
    { role: "user", content: [{ type: "text", text: "more please" }], timestamp },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Here are\nfour words" },
        { type: "tool_use", id: "t1", name: "word_count", input: { path: "x" } },
        { type: "text", text: "and three more" },
      ],
      timestamp,
    },
  );
  await harness.host.runCommand("wc", "");
  assert.deepEqual(harness.notifications.at(-1), {
    text: "The last answer has 7 words",
    level: undefined,
  });
});

Deno.test("tool_badge example: wraps tool components with a badge that ctrl+shift+b toggles", async () => {
  const harness = makeHarness();
  await harness.host.load([TOOL_BADGE]);
  assert.deepEqual(harness.reports, []);

  const data = { callId: "c1", name: "read", args: '{"path":"a.txt"}' };
  let inner: ToolUse | undefined;
  const component: Component = harness.uiEvents.create(
    "tool",
    data,
    () => (inner = new ToolUse(data)),
  );
  assert.ok(inner !== undefined && component !== inner, "the default was wrapped, not replaced");

  // The app keeps driving the inner component; the badge follows.
  inner.setStatus("done");
  inner.setResult("line one\nline two");
  const width = 40;
  const badged = component.render(width);
  const plain = new ToolUse(data);
  plain.setStatus("done");
  plain.setResult("line one\nline two");
  assert.deepEqual(badged, plain.render(width - 2).map((line) => `⚙ ${line}`));

  assert.equal(harness.host.handleKey(kittyCtrlShift("b")), true);
  assert.deepEqual(harness.notifications, [{ text: "Tool badges off", level: undefined }]);
  assert.equal(component.firstLineChanged(), 0, "a toggle repaints every line");
  assert.deepEqual(component.render(width), plain.render(width));

  assert.equal(harness.host.handleKey("\x02"), false, "ctrl+b alone is not the binding");
  assert.equal(harness.host.handleKey(kittyCtrlShift("b")), true);
  assert.ok(component.render(width).every((line) => line.startsWith("⚙ ")));
  assert.deepEqual(harness.host.keybindings(), [
    {
      keys: ["ctrl+shift+b"],
      description: "Toggle the ⚙ badge on tool calls",
      extension: "tool_badge",
    },
  ]);
});
