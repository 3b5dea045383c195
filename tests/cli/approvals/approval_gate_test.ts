import assert from "node:assert/strict";
import { join } from "node:path";
import { Agent, type AgentEvent, ResultParts, type Tool, type ToolCall } from "@panto/lib";
import {
  type ApprovalAnswer,
  ApprovalGate,
  type ApprovalRequest,
} from "../../../cli/approvals/approval_gate.ts";
import { AlwaysAllowed, alwaysScope } from "../../../cli/approvals/always_allowed.ts";
import { previewChange } from "../../../cli/approvals/change_preview.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { MemoryStore } from "../../support/memory_store.ts";
import { drain, fakeServerConfig, textTurn, toolTurn } from "../../support/agent_fixtures.ts";

/** A tool that records each run. */
function recordingTool(name: string): { tool: Tool; runs: Record<string, unknown>[] } {
  const runs: Record<string, unknown>[] = [];
  const tool: Tool = {
    decl: { name, description: name, inputSchema: { type: "object" } },
    execute: (args) => {
      runs.push(args);
      return ResultParts.fromText(`${name} ran`);
    },
  };
  return { tool, runs };
}

/** A gate whose questions are answered from `answers`, in order, and recorded. */
function scriptedGate(required: string[], answers: ApprovalAnswer[], root = Deno.cwd()) {
  const asked: ApprovalRequest[] = [];
  const gate = new ApprovalGate({
    required: () => required,
    files: { root },
    ask: (request) => {
      asked.push(request);
      const answer = answers.shift();
      if (!answer) throw new Error(`no answer scripted for ${request.call.name}`);
      return Promise.resolve(answer);
    },
  });
  return { gate, asked };
}

function results(events: AgentEvent[]) {
  return events.flatMap((e) => e.type === "tool_dispatch_complete" ? [e] : []);
}

function resultText(event: ReturnType<typeof results>[number]): string {
  const part = event.result[0];
  return part?.type === "text" ? part.text : "";
}

/** Runs an agent whose model calls `calls` (one response), then answers "done". */
async function runWithGate(
  gate: ApprovalGate,
  calls: { id: string; name: string; input: Record<string, unknown> }[],
  tools: Tool[],
): Promise<{ events: AgentEvent[]; server: FakeLlmServer }> {
  const server = await FakeLlmServer.start();
  server.enqueue(toolTurn(...calls));
  server.enqueue(textTurn("done"));
  const agent = new Agent({
    config: fakeServerConfig(server, "anthropic-messages", "sk-test-approvals"),
    session: new MemoryStore().create(),
    hooks: { beforeToolCall: gate.beforeToolCall },
  });
  for (const tool of tools) agent.registerTool(tool);
  try {
    return { events: await drain(agent.run("go")), server };
  } finally {
    await server.close();
  }
}

Deno.test("approvals: a tool not listed runs without a question", async () => {
  const { gate, asked } = scriptedGate(["bash"], []);
  const echo = recordingTool("echo");
  await runWithGate(gate, [{ id: "c1", name: "echo", input: {} }], [echo.tool]);
  assert.equal(asked.length, 0);
  assert.equal(echo.runs.length, 1);
});

Deno.test("approvals: once runs the call and asks again next time", async () => {
  const { gate, asked } = scriptedGate(["echo"], [{ decision: "once" }, { decision: "once" }]);
  const echo = recordingTool("echo");
  const calls = [{ id: "c1", name: "echo", input: { n: 1 } }, {
    id: "c2",
    name: "echo",
    input: { n: 2 },
  }];
  await runWithGate(gate, calls, [echo.tool]);
  assert.deepEqual(asked.map((r) => r.call.id), ["c1", "c2"]);
  assert.deepEqual(echo.runs, [{ n: 1 }, { n: 2 }]);
});

Deno.test("approvals: always is remembered per tool; other tools still ask", async () => {
  const { gate, asked } = scriptedGate(["echo", "other"], [
    { decision: "always" },
    { decision: "reject" },
  ]);
  const echo = recordingTool("echo");
  const other = recordingTool("other");
  const calls = [
    { id: "c1", name: "echo", input: { n: 1 } },
    { id: "c2", name: "echo", input: { n: 2 } },
    { id: "c3", name: "other", input: {} },
  ];
  await runWithGate(gate, calls, [echo.tool, other.tool]);
  assert.deepEqual(asked.map((r) => r.call.id), ["c1", "c3"]);
  assert.equal(asked[0]!.alwaysLabel, "every echo call");
  assert.equal(echo.runs.length, 2);
  assert.equal(other.runs.length, 0);
  gate.forget();
  assert.ok(gate.needsApproval({ id: "c4", name: "echo", input: {} }), "forgotten");
});

Deno.test("approvals: parallel calls are asked one at a time; an always covers the ones waiting", async () => {
  let open = 0;
  let most = 0;
  const asked: string[] = [];
  const gate = new ApprovalGate({
    required: () => ["echo"],
    files: { root: Deno.cwd() },
    ask: async (request) => {
      asked.push(request.call.id);
      most = Math.max(most, ++open);
      await new Promise((resolve) => setTimeout(resolve, 20));
      open--;
      return { decision: "always" };
    },
  });
  const echo = recordingTool("echo");
  const server = await FakeLlmServer.start();
  server.enqueue(toolTurn(
    { id: "c1", name: "echo", input: { n: 1 } },
    { id: "c2", name: "echo", input: { n: 2 } },
  ));
  server.enqueue(textTurn("done"));
  const agent = new Agent({
    config: {
      ...fakeServerConfig(server, "anthropic-messages", "sk-test-approvals"),
      parallelTools: true,
    },
    session: new MemoryStore().create(),
    hooks: { beforeToolCall: gate.beforeToolCall },
  });
  agent.registerTool(echo.tool);
  try {
    await drain(agent.run("go"));
  } finally {
    await server.close();
  }
  assert.equal(most, 1, "never two questions at once");
  assert.deepEqual(asked, ["c1"], "the second call was covered by the first answer");
  assert.equal(echo.runs.length, 2);
});

Deno.test("approvals: a rejection's reason reaches the model as the tool result", async () => {
  const { gate } = scriptedGate(["echo"], [{ decision: "reject", reason: "use tabs, not spaces" }]);
  const echo = recordingTool("echo");
  const { events, server } = await runWithGate(
    gate,
    [{ id: "c1", name: "echo", input: {} }],
    [echo.tool],
  );
  assert.equal(echo.runs.length, 0, "the tool did not run");
  const [result] = results(events);
  assert.equal(result!.isError, true);
  assert.equal(
    resultText(result!),
    "echo was denied: the user rejected this call and said: use tabs, not spaces",
  );
  const sent = JSON.stringify(server.requests[1]!.body);
  assert.match(sent, /the user rejected this call and said: use tabs, not spaces/);
});

Deno.test("approvals: a rejection without a reason says so; a refusal sends its own message", async () => {
  const { gate } = scriptedGate(["echo"], [
    { decision: "reject" },
    { decision: "refuse", message: "print mode cannot ask" },
  ]);
  const echo = recordingTool("echo");
  const calls = [{ id: "c1", name: "echo", input: {} }, { id: "c2", name: "echo", input: {} }];
  const { events } = await runWithGate(gate, calls, [echo.tool]);
  assert.deepEqual(results(events).map(resultText), [
    "echo was denied: the user rejected this call",
    "echo was denied: print mode cannot ask",
  ]);
});

Deno.test("approvals: an abort closes the open question; after it nothing is asked", async () => {
  const opened = Promise.withResolvers<void>();
  let closed = false;
  const gate = new ApprovalGate({
    required: () => ["echo"],
    files: { root: Deno.cwd() },
    ask: (_request, signal) =>
      new Promise((resolve) => {
        opened.resolve();
        signal.addEventListener("abort", () => {
          closed = true;
          resolve({ decision: "reject" });
        });
      }),
  });
  const controller = new AbortController();
  const call: ToolCall = { id: "c1", name: "echo", input: {} };
  const tool = { name: "echo", description: "", inputSchema: {} };
  const pending = gate.beforeToolCall({ call, tool, signal: controller.signal });
  await opened.promise;
  controller.abort();
  await pending;
  assert.ok(closed, "the question saw the abort");
  // A question asked after the abort is not asked at all.
  await assert.rejects(gate.beforeToolCall({ call, tool, signal: controller.signal }));
});

Deno.test("approvals: always for bash covers the same program in simple commands only", () => {
  const bash = (command: string): ToolCall => ({ id: "b", name: "bash", input: { command } });
  const allowed = new AlwaysAllowed();
  assert.equal(alwaysScope(bash("git status")).label, "bash commands starting with `git`");
  allowed.remember(bash("git status"));
  assert.ok(allowed.allows(bash("git diff --stat")));
  assert.ok(!allowed.allows(bash("gitk")));
  assert.ok(!allowed.allows(bash("rm -rf build")));
  for (
    const sneaky of [
      "git log; rm x",
      "git log && rm x",
      "git log | sh",
      "git $(rm x)",
      "git log > f",
    ]
  ) {
    assert.ok(!allowed.allows(bash(sneaky)), sneaky);
  }
  const compound = bash("make && make test");
  assert.equal(alwaysScope(compound).label, "this exact bash command");
  allowed.remember(compound);
  assert.ok(allowed.allows(bash("make && make test")));
  assert.ok(!allowed.allows(bash("make")));
});

Deno.test("approvals: the preview of edit and write is computed without writing", async () => {
  const root = await Deno.makeTempDir();
  try {
    const signal = new AbortController().signal;
    await Deno.writeTextFile(join(root, "a.txt"), "one\ntwo\n");
    const write = await previewChange(
      { id: "w", name: "write", input: { path: "a.txt", content: "one\nTWO\n" } },
      { root },
      signal,
    );
    assert.deepEqual(write, { path: "a.txt", diff: "@@ -1,2 +1,2 @@\n one\n-two\n+TWO" });
    const edit = await previewChange(
      { id: "e", name: "edit", input: { path: "a.txt", oldText: "one", newText: "uno" } },
      { root },
      signal,
    );
    assert.ok(edit && "diff" in edit && edit.diff.includes("+uno\n two"), JSON.stringify(edit));
    const created = await previewChange(
      { id: "n", name: "write", input: { path: "new.txt", content: "fresh\n" } },
      { root },
      signal,
    );
    assert.ok(created && "diff" in created && created.diff.includes("+fresh"));
    const failing = await previewChange(
      { id: "f", name: "edit", input: { path: "a.txt", oldText: "absent", newText: "x" } },
      { root },
      signal,
    );
    assert.ok(failing && "problem" in failing && failing.problem.includes("oldText was not found"));
    assert.equal(await Deno.readTextFile(join(root, "a.txt")), "one\ntwo\n", "nothing written");
    await assert.rejects(Deno.stat(join(root, "new.txt")), Deno.errors.NotFound);
    assert.equal(
      await previewChange({ id: "b", name: "bash", input: { command: "ls" } }, { root }, signal),
      undefined,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("approvals: the question carries the change a write would make", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(root, "a.txt"), "old\n");
    const { gate, asked } = scriptedGate(["write"], [{ decision: "reject" }], root);
    const call = { id: "w", name: "write", input: { path: "a.txt", content: "new\n" } };
    const tool = { name: "write", description: "", inputSchema: {} };
    await gate.beforeToolCall({ call, tool, signal: new AbortController().signal });
    assert.deepEqual(asked[0]!.preview, { path: "a.txt", diff: "@@ -1,1 +1,1 @@\n-old\n+new" });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("approval gate: the list is read at each call, so a changed setting applies to the next call", async () => {
  const list: string[] = [];
  const asked: string[] = [];
  const gate = new ApprovalGate({
    required: () => list,
    ask: (request) => {
      asked.push(request.call.name);
      return Promise.resolve({ decision: "once" });
    },
    files: { root: Deno.cwd(), allowedRoots: [] },
  });
  const tool = { name: "echo", description: "", inputSchema: {} };
  const signal = new AbortController().signal;
  await gate.beforeToolCall({ call: { id: "c1", name: "echo", input: {} }, tool, signal });
  assert.deepEqual(asked, [], "not in the list: not asked");
  list.push("echo");
  await gate.beforeToolCall({ call: { id: "c2", name: "echo", input: {} }, tool, signal });
  assert.deepEqual(asked, ["echo"], "added while running: asked at the next call");
});
