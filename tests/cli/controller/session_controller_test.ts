/**
 * The session controller against the fake LLM server: prompts and their
 * events, the follow-up and steering queue, abort, models, sessions
 * (new, switch, fork), pending names, compaction and `!shell` context.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Conversation, type Message, messageText } from "@panto/lib";
import { type ChatArgs, parseArgs } from "../../../cli/setup/args.ts";
import type { ControllerEvent } from "../../../cli/controller/controller_events.ts";
import {
  ControllerBusyError,
  SessionController,
} from "../../../cli/controller/session_controller.ts";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer, type FakeReply } from "../../support/fake_llm_server.ts";
import { allNodes } from "../../support/tree_nodes.ts";
import { TINY_PNG } from "../chat/clipboard_fakes.ts";

interface Fixture {
  server: FakeLlmServer;
  controller: SessionController;
  events: ControllerEvent[];
  project: string;
}

/** A controller on a fresh home and project, with every event recorded. */
async function withController(
  body: (fixture: Fixture) => Promise<void>,
  argv: readonly string[] = [],
  config: Record<string, unknown> = {},
): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-controller-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-controller-project-" });
  try {
    await writeFakeConfig(home, server, { retry: { maxRetries: 0 }, ...config });
    const controller = await SessionController.open(parseArgs(argv) as ChatArgs, {
      cwd: project,
      pantoHome: home,
    });
    const events: ControllerEvent[] = [];
    controller.subscribe((event) => events.push(event));
    try {
      await body({ server, controller, events, project });
    } finally {
      await controller.close();
    }
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
}

function text(value: string, options: { headerDelayMs?: number } = {}): FakeReply {
  return { kind: "turn", blocks: [{ type: "text", text: value }], ...options };
}

/** The text of the last user message of request `index`. */
function lastUserText(server: FakeLlmServer, index: number): string {
  const body = server.requests[index]?.body as { messages: { role: string }[] } | undefined;
  assert.ok(body, `request ${index} was made`);
  return JSON.stringify(body.messages.findLast((m) => m.role === "user"));
}

/** Appends a user message to a saved session, as a crash right after sending would leave it. */
async function saveUnansweredPrompt(
  controller: SessionController,
  sessionId: string,
  prompt: string,
): Promise<void> {
  const message = new Conversation().addUserMessage(prompt);
  await controller.store.appendMessages(sessionId, [
    { message, conversation: [message], toolsAvailable: [] },
  ]);
}

function types(events: readonly ControllerEvent[]): string[] {
  return events.map((event) => event.type);
}

async function waitFor(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("controller: a prompt runs to its end, its events reach subscribers in order", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue(text("Hello there."));
    const outcome = await controller.prompt("hi");
    assert.deepEqual(outcome, { status: "done", turnLimitReached: false });
    const seen = types(events);
    assert.equal(seen[0], "user_prompt");
    assert.ok(seen.includes("content_delta"));
    assert.ok(seen.indexOf("run_complete") < seen.indexOf("run_end"));
    assert.equal(seen.at(-1), "run_end");
    assert.equal(controller.busy, false);
    assert.equal(controller.session.persisted, true);
    const state = controller.state();
    assert.equal(state.messageCount, 3, "system prompt, prompt and answer");
    assert.equal(state.activity, "idle");
    assert.ok(state.usage.outputTokens > 0);
  });
});

Deno.test("controller: a second prompt while busy is refused; follow-ups run in order afterwards", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue(text("One.", { headerDelayMs: 200 }), text("Two."), text("Three."));
    const first = controller.prompt("first");
    assert.equal(controller.busy, true);
    await assert.rejects(controller.prompt("too soon"), ControllerBusyError);
    controller.followUp("second");
    controller.followUp("third");
    assert.deepEqual(controller.queue, { steering: [], followUp: ["second", "third"] });
    assert.equal((await first).status, "done");
    await controller.idle();
    assert.equal(server.requests.length, 3);
    assert.match(lastUserText(server, 0), /first/);
    assert.match(lastUserText(server, 1), /second/);
    assert.match(lastUserText(server, 2), /third/);
    const prompts = events.filter((e) => e.type === "user_prompt");
    assert.deepEqual(
      prompts.map((e) => [e.text, e.followUp]),
      [["first", false], ["second", true], ["third", true]],
    );
    const lastQueue = events.findLast((e) => e.type === "queue_update");
    assert.deepEqual(lastQueue, { type: "queue_update", steering: [], followUp: [] });
  });
});

Deno.test("controller: steering joins the running run after its tool batch, before follow-ups", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue(
      {
        kind: "turn",
        blocks: [{ type: "tool_use", id: "call_1", name: "ls", input: {} }],
        headerDelayMs: 200,
      },
      text("Steered."),
      text("Followed."),
    );
    const run = controller.prompt("list the files");
    controller.followUp("FOLLOW-UP");
    controller.steer("STEER-NOW");
    assert.deepEqual(controller.queue, { steering: ["STEER-NOW"], followUp: ["FOLLOW-UP"] });
    await run;
    await controller.idle();
    assert.equal(server.requests.length, 3, "two requests for the steered run, one follow-up");
    assert.match(lastUserText(server, 1), /STEER-NOW/, "the run's second request has it");
    assert.match(lastUserText(server, 2), /FOLLOW-UP/);
    const steered = JSON.stringify(server.requests[2]!.body).match(/STEER-NOW/g) ?? [];
    assert.equal(steered.length, 1, "sent once");
    assert.ok(events.some((e) => e.type === "steer_applied"));
    assert.deepEqual(controller.queue, { steering: [], followUp: [] });
  });
});

Deno.test("controller: steering left when the run ends is the next run", async () => {
  await withController(async ({ server, controller }) => {
    server.enqueue(text("Answered.", { headerDelayMs: 200 }), text("Late steer seen."));
    const run = controller.prompt("no tools here");
    controller.steer("LATE-STEER");
    await run;
    await controller.idle();
    assert.equal(server.requests.length, 2);
    assert.match(lastUserText(server, 1), /LATE-STEER/);
  });
});

Deno.test("controller: abort stops the run, keeps the partial answer, and the queue", async () => {
  await withController(async ({ server, controller, events }) => {
    const chunk = (delta: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id: "q", choices: [{ index: 0, delta }] })}\n\n`;
    const body = chunk({ role: "assistant", content: "" }) + chunk({ content: "PARTIAL" });
    server.enqueue({
      kind: "stall",
      afterBytes: new TextEncoder().encode(body).length,
      source: { kind: "sse", body: body + chunk({ content: " never" }) },
    });
    const run = controller.prompt("go");
    await waitFor("the partial text", () => events.some((e) => e.type === "content_delta"));
    controller.followUp("later");
    controller.abort();
    const outcome = await run;
    assert.equal(outcome.status, "aborted");
    assert.deepEqual(controller.takeQueue(), ["later"], "abort leaves the queue to the view");
    const saved = await controller.store.load(controller.session.id);
    assert.equal(saved?.messages.at(-1)?.stopReason, "aborted");
    assert.match(JSON.stringify(saved?.messages.at(-1)?.content), /PARTIAL/);
  });
});

Deno.test("controller: a failed request is an outcome with a worded failure", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue({ kind: "http_error", status: 401, body: { error: { message: "bad key" } } });
    const outcome = await controller.prompt("hi");
    assert.equal(outcome.status, "failed");
    assert.equal(outcome.failure?.kind, "auth");
    assert.match(outcome.failure!.message, /^The request failed \(auth\): .*bad key/);
    const { cause: _cause, ...shown } = outcome;
    assert.deepEqual(events.at(-1), { type: "run_end", ...shown }, "events carry no thrown value");
    assert.equal(controller.busy, false);
  });
});

Deno.test("controller: setModel, cycleModel and setThinkingLevel switch what the next request uses", async () => {
  await withController(async ({ server, controller, events }) => {
    assert.equal(controller.model.alias, "fast");
    assert.equal(controller.cycleModel().alias, "smart");
    assert.equal(controller.cycleModel().alias, "fast", "wraps around");
    assert.equal(controller.cycleModel(-1).alias, "smart");
    controller.setThinkingLevel("high");
    assert.equal(controller.state().model.reasoning, "high");
    assert.deepEqual(events.at(-1), {
      type: "model_changed",
      alias: "smart",
      model: "smart-model",
      reasoning: "high",
    });
    server.enqueue(text("From smart."));
    await controller.prompt("hi");
    assert.equal(server.requests[0]!.path, "/v1/messages", "the Anthropic endpoint of smart");
    controller.setModel("fast");
    assert.equal(controller.state().model.reasoning, "off", "the alias's level, not the last");
    controller.setModel("fast", "medium");
    assert.equal(controller.state().model.reasoning, "medium");
    assert.throws(() => controller.setModel("nope"), /nope/);
    server.enqueue(text("slow", { headerDelayMs: 200 }));
    const run = controller.prompt("again");
    assert.throws(() => controller.setModel("smart"), ControllerBusyError);
    await run;
  });
});

Deno.test("controller: new, switch and fork sessions", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue(text("First answer."));
    await controller.prompt("first question");
    const first = controller.session.id;

    await controller.newSession();
    assert.notEqual(controller.session.id, first);
    assert.equal(controller.agent.conversation.messages.length, 1, "only the system prompt");
    assert.deepEqual(events.at(-1), {
      type: "session_changed",
      sessionId: controller.session.id,
      reason: "new",
      resumed: false,
    });

    await controller.switchSession(first.slice(0, 8));
    assert.equal(controller.session.id, first);
    assert.match(JSON.stringify(controller.agent.conversation.messages), /First answer\./);
    await assert.rejects(controller.switchSession("ffffffff"), /No session matches "ffffffff"/);

    const forked = await controller.fork();
    assert.notEqual(forked, first);
    assert.equal(controller.session.id, forked);
    assert.equal((events.at(-1) as { reason?: string }).reason, "fork");
    assert.equal(controller.session.info.parentSessionId, first, "the fork names its parent");
    const copy = await controller.store.load(forked);
    assert.equal(copy?.messages.length, 3, "saved with the whole conversation");
    server.enqueue(text("Forked answer."));
    await controller.prompt("in the fork");
    assert.match(JSON.stringify(server.requests[1]!.body), /First answer\./);
    const original = await controller.store.load(first);
    assert.equal(original?.messages.length, 3, "the original is untouched");

    const partial = await controller.fork(2);
    assert.equal(controller.agent.conversation.messages.length, 1, "the system prompt");
    assert.equal(controller.danglingPrompt, "first question", "the unanswered question waits");
    assert.equal(controller.session.info.parentSessionId, forked);
    assert.notEqual(partial, forked);
    await assert.rejects(controller.fork(99), /Cannot fork at message 99/);
    const ids = (await controller.listSessions()).map((s) => s.id);
    assert.ok(ids.includes(first) && ids.includes(forked));
  });
});

Deno.test("controller: branching at an earlier prompt offers it for editing; sending it makes a sibling", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue(text("A1"));
    await controller.prompt("q1");
    server.enqueue(text("A2"));
    await controller.prompt("q2");
    const id = controller.session.id;
    const before = await controller.sessionTree();
    const q2 = allNodes(before.roots).find((node) => node.preview === "q2");
    assert.ok(q2?.active);

    await controller.branch(q2.id);
    assert.equal(controller.session.id, id, "the same session");
    assert.equal((events.at(-1) as { reason?: string }).reason, "branch");
    assert.equal(controller.danglingPrompt, "q2");
    assert.deepEqual(controller.agent.conversation.messages.map((m) => m.role), [
      "system",
      "user",
      "assistant",
    ]);

    server.enqueue(text("A2b"));
    await controller.prompt("q2, edited");
    assert.doesNotMatch(JSON.stringify(server.requests[2]!.body), /"A2"/);
    const after = await controller.sessionTree();
    const parent = allNodes(after.roots).find((node) => node.id === q2.parentId);
    assert.deepEqual(parent?.children.map((child) => [child.preview, child.active]), [
      ["q2", false],
      ["q2, edited", true],
    ]);
    const saved = await controller.store.load(id);
    assert.deepEqual(saved?.messages.map((m) => messageText(m)).slice(1), [
      "q1",
      "A1",
      "q2, edited",
      "A2b",
    ]);
    await assert.rejects(controller.branch("no-such-entry"), /"no-such-entry" is not in/);
  });
});

/** Another 1×1 PNG than {@linkcode TINY_PNG}, for an `@file` image. */
const FILE_PNG = Uint8Array.fromBase64(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
);

/** How many times `needle` occurs in `haystack`. */
function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

Deno.test("controller: a prompt chosen again gives back its text as typed and its pasted images, not its @files", async () => {
  await withController(async ({ server, controller, project }) => {
    await Deno.writeTextFile(join(project, "notes.txt"), "NOTE-CONTENT\n");
    await Deno.writeFile(join(project, "pic.png"), FILE_PNG);
    const pasted = { type: "image", mediaType: "image/png", data: TINY_PNG.toBase64() } as const;
    const typed = "compare @notes.txt with @pic.png";
    await controller.runShell("echo SHELL-SAID");
    server.enqueue(text("Compared."));
    await controller.prompt(typed, { images: [pasted] });
    const sent = lastUserText(server, 0);
    for (const part of ["NOTE-CONTENT", "<shell_output>", pasted.data, FILE_PNG.toBase64()]) {
      assert.equal(occurrences(sent, part), 1, `${part} sent once: ${sent}`);
    }
    const stored = controller.agent.conversation.messages.at(-2)!;
    assert.deepEqual(
      stored.content.map((block) => block.type === "text" ? block.text.slice(0, 22) : block.type),
      [
        typed.slice(0, 22),
        "image",
        '<file path="notes.txt"',
        '<file path="pic.png">[',
        "image",
        "The user ran `echo SHE",
      ],
      "the text as typed, the pasted image, then the attachments",
    );
    const node = allNodes((await controller.sessionTree()).roots).find((n) => n.preview === typed);
    assert.ok(node, "the tree previews the prompt as typed");

    await controller.branch(node.id);
    assert.equal(controller.danglingPrompt, typed);
    assert.deepEqual(controller.danglingImages, [pasted], "only the pasted image");
    assert.equal(controller.state().danglingPrompt, typed);
    server.enqueue(text("Compared again."));
    await controller.prompt(controller.danglingPrompt, { images: controller.danglingImages });
    const again = lastUserText(server, 1);
    for (const part of ["NOTE-CONTENT", pasted.data, FILE_PNG.toBase64()]) {
      assert.equal(occurrences(again, part), 1, `${part} sent again, once: ${again}`);
    }
    assert.equal(controller.danglingPrompt, undefined);
    assert.deepEqual(controller.danglingImages, []);

    await controller.forkAt(node.id);
    assert.equal(controller.danglingPrompt, typed, "a fork at the prompt offers it the same way");
    assert.deepEqual(controller.danglingImages, [pasted]);
  });
});

Deno.test("controller: a move in the tree or to another session is busy; what is typed meanwhile goes after it", async () => {
  await withController(async ({ server, controller }) => {
    server.enqueue(text("A1"));
    await controller.prompt("q1");
    server.enqueue(text("A2"));
    await controller.prompt("q2");
    const a1 = allNodes((await controller.sessionTree()).roots).find((n) => n.preview === "A1");
    assert.ok(a1);

    const moving = controller.branch(a1.id);
    assert.equal(controller.state().activity, "switching");
    await assert.rejects(controller.prompt("too soon"), ControllerBusyError);
    server.enqueue(text("A3"));
    controller.steer("q3");
    await moving;
    await controller.idle();
    const sent = (server.requests.at(-1)!.body as { messages: unknown[] }).messages;
    assert.doesNotMatch(JSON.stringify(sent), /"q2"|"A2"/, "sent on the new branch");
    assert.match(lastUserText(server, server.requests.length - 1), /q3/);

    const switching = controller.newSession();
    await assert.rejects(controller.fork(), /before forking the session/);
    await switching;
    assert.equal(controller.state().activity, "idle");
  });
});

Deno.test("controller: branch with a summary: the branch left is summarised, the summary follows the next prompt", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue(text("A1"));
    await controller.prompt("q1");
    server.enqueue(text("A2"));
    await controller.prompt("q2 on the branch left");
    const a1 = allNodes((await controller.sessionTree()).roots).find((n) => n.preview === "A1")!;

    server.enqueue(text("They tried q2 and got A2."));
    const summary = await controller.branch(a1.id, { summarise: true, instructions: "be short" });
    assert.equal(summary, "They tried q2 and got A2.");
    const asked = JSON.stringify(server.requests[2]!.body);
    assert.match(asked, /a branch of the conversation that the user has left/);
    assert.match(
      asked,
      /\[user\] q2 on the branch left\\n\\n\[assistant\] A2/,
      "only what is left",
    );
    assert.doesNotMatch(asked, /\[user\] q1/, "not the part both branches share");
    assert.match(asked, /Additional instructions: be short/);
    assert.equal((events.at(-1) as { reason?: string }).reason, "branch");

    server.enqueue(text("A3"));
    await controller.prompt("q3");
    const sent = lastUserText(server, 3);
    assert.match(sent, /^\{"role":"user","content":"q3\\n\\n<branch_summary>/, "after the prompt");
    assert.match(sent, /They tried q2 and got A2\.\\n<\/branch_summary>/);
    server.enqueue(text("A4"));
    await controller.prompt("q4");
    assert.doesNotMatch(lastUserText(server, 4), /branch_summary/, "once");
    const q3 = allNodes((await controller.sessionTree()).roots).find((n) =>
      n.preview.startsWith("q3")
    );
    assert.equal(q3?.parentId, a1.id, "a new branch from the chosen point");
  });
});

Deno.test("controller: a branch summary stopped or failed leaves the session where it was; none without a branch left", async () => {
  await withController(async ({ server, controller }) => {
    server.enqueue(text("A1"));
    await controller.prompt("q1");
    server.enqueue(text("A2"));
    await controller.prompt("q2");
    const before = await controller.sessionTree();
    const a1 = allNodes(before.roots).find((n) => n.preview === "A1")!;

    server.enqueue(text("Never sent.", { headerDelayMs: 60_000 }));
    const stopped = controller.branch(a1.id, { summarise: true });
    await waitFor("the summary request", () => server.requests.length === 3);
    assert.equal(controller.state().activity, "summarising");
    await assert.rejects(controller.prompt("too early"), ControllerBusyError);
    controller.abort();
    await assert.rejects(stopped, (error: Error) => error.name === "AbortError");
    assert.deepEqual((await controller.sessionTree()).leafId, before.leafId, "still at the end");

    server.enqueue({ kind: "turn", blocks: [] });
    await assert.rejects(controller.branch(a1.id, { summarise: true }), /empty summary/);
    assert.deepEqual((await controller.sessionTree()).leafId, before.leafId);

    await controller.branch(a1.id);
    const requests = server.requests.length;
    const a2 = allNodes(before.roots).find((n) => n.preview === "A2")!;
    assert.equal(await controller.branch(a2.id, { summarise: true }), undefined, "nothing left");
    assert.equal(server.requests.length, requests, "no request");
    server.enqueue(text("A3"));
    await controller.prompt("q3");
    assert.doesNotMatch(lastUserText(server, requests), /branch_summary/);
  });
});

Deno.test("controller: forkAt copies the path to any entry of the tree into a new session", async () => {
  await withController(async ({ server, controller }) => {
    server.enqueue(text("A1"));
    await controller.prompt("q1");
    server.enqueue(text("A2"));
    await controller.prompt("q2");
    const first = allNodes((await controller.sessionTree()).roots);
    await controller.branch(first.find((n) => n.preview === "A1")!.id);
    server.enqueue(text("A2b"));
    await controller.prompt("q2b");
    const original = controller.session.id;
    const a2 = allNodes((await controller.sessionTree()).roots).find((n) => n.preview === "A2")!;
    assert.equal(a2.active, false, "on the branch left");

    const forked = await controller.forkAt(a2.id);
    assert.equal(controller.session.id, forked);
    assert.equal(controller.session.info.parentSessionId, original);
    assert.deepEqual(controller.agent.conversation.messages.slice(1).map((m) => messageText(m)), [
      "q1",
      "A1",
      "q2",
      "A2",
    ]);
    await assert.rejects(controller.forkAt("no-such-entry"), /"no-such-entry" is not in/);
    await controller.newSession();
    await assert.rejects(
      controller.forkAt(a2.id),
      /Only a saved session can be forked at an entry/,
    );
  });
});

Deno.test("controller: with --no-session, fork copies the conversation in memory", async () => {
  await withController(async ({ server, controller }) => {
    server.enqueue(text("Kept nowhere."));
    await controller.prompt("question");
    const first = controller.session.id;
    await controller.fork();
    assert.notEqual(controller.session.id, first);
    assert.equal(controller.agent.conversation.messages.length, 3);
  }, ["--no-session"]);
});

Deno.test("controller: a name given before the first answer waits; one before /new is dropped", async () => {
  await withController(async ({ server, controller, events }) => {
    await controller.nameSession("kept");
    assert.deepEqual(events.at(-1), { type: "session_named", name: "kept", pending: true });
    assert.equal(controller.state().sessionName, "kept");
    server.enqueue(text("Hello."));
    await controller.prompt("hi");
    // Named before the run ends, so nothing (a /new, a switch) can come in between.
    assert.deepEqual(events.at(-2), { type: "session_named", name: "kept", pending: false });
    assert.equal(events.at(-1)?.type, "run_end");
    assert.equal((await controller.store.list())[0]?.name, "kept");

    await controller.newSession();
    await controller.nameSession("dropped");
    await controller.newSession();
    server.enqueue(text("Hello again."));
    await controller.prompt("hi");
    const names = (await controller.store.list()).map((s) => s.name);
    assert.deepEqual(names.sort(), [undefined, "kept"].sort());
  });
});

Deno.test("controller: !shell output goes with the next prompt only; prompts queue behind it", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue(text("Seen."), text("Fine."));
    const shell = controller.runShell("echo from-the-shell");
    controller.followUp("what did it print?");
    const result = await shell;
    assert.equal(result.failed, false);
    assert.match(result.output, /from-the-shell/);
    await controller.idle();
    assert.match(
      lastUserText(server, 0),
      /what did it print\?[^]*<shell_output>[^]*from-the-shell/,
    );
    await controller.prompt("and now?");
    assert.doesNotMatch(lastUserText(server, 1), /shell_output/);
    const ends = events.filter((e) => e.type === "shell_start" || e.type === "shell_end");
    assert.deepEqual(ends.map((e) => e.type), ["shell_start", "shell_end"]);
  });
});

Deno.test("controller: a shell command queued during a run runs after it, in queue order", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue(text("One.", { headerDelayMs: 200 }), text("Two."));
    const run = controller.prompt("first");
    controller.queueShell("echo queued-shell");
    controller.followUp("second");
    assert.deepEqual(controller.queue.followUp, ["!echo queued-shell", "second"]);
    await run;
    await controller.idle();
    const order = events.flatMap((e) =>
      e.type === "user_prompt" ? [e.text] : e.type === "shell_end" ? [`!${e.command}`] : []
    );
    assert.deepEqual(order, ["first", "!echo queued-shell", "second"]);
    assert.match(lastUserText(server, 1), /second[^]*queued-shell/, "its output went with it");
  });
});

Deno.test("controller: compaction reports start and end, and what is queued meanwhile runs after", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue(text("First answer."));
    await controller.prompt("first question");
    server.enqueue(text("THE SUMMARY", { headerDelayMs: 200 }), text("After."));
    const compaction = controller.compact("keep it short");
    controller.followUp("typed while compacting");
    const result = await compaction;
    assert.equal(result?.summary, "THE SUMMARY");
    const order = types(events).filter((t) => t.startsWith("compaction") || t === "user_prompt");
    await controller.idle();
    assert.deepEqual(order, ["user_prompt", "compaction_start", "compaction_end"]);
    assert.match(lastUserText(server, 2), /typed while compacting/);
  });
});

Deno.test("controller: @file words in text prompts attach the file, with a notice", async () => {
  await withController(async ({ server, controller, events, project }) => {
    await Deno.writeTextFile(join(project, "notes.txt"), "ATTACHED-CONTENT\n");
    server.enqueue(text("Read it."));
    await controller.prompt("summarise @notes.txt");
    assert.match(lastUserText(server, 0), /ATTACHED-CONTENT/);
    assert.ok(events.some((e) => e.type === "notice" && e.text === "Attached notes.txt"));
  });
});

Deno.test("controller: an unsubscribed listener hears nothing more", async () => {
  await withController(async ({ server, controller }) => {
    const heard: string[] = [];
    const stop = controller.subscribe((event) => heard.push(event.type));
    controller.cycleModel();
    stop();
    server.enqueue(text("Quiet."));
    await controller.prompt("hi");
    assert.deepEqual(heard, ["model_changed"]);
  });
});

Deno.test("controller: extension tools and commands are wired once and follow every session", async () => {
  const fixture = new URL("../extensions/fixtures/full.ts", import.meta.url).pathname;
  await withController(async ({ server, controller }) => {
    const notices: string[] = [];
    await controller.loadExtensions({
      mode: "print",
      uiEvents: undefined,
      notify: (text) => notices.push(text),
      submit: (text) => controller.followUp(text),
      reservedCommands: [],
    });
    assert.ok(controller.agent.tools.some((t) => t.decl.name === "fixture_echo"));
    assert.ok(controller.extensionCommands().some((c) => c.name === "greet"));
    await controller.newSession();
    assert.ok(controller.agent.tools.some((t) => t.decl.name === "fixture_echo"), "after /new");
    server.enqueue(
      {
        kind: "turn",
        blocks: [{ type: "tool_use", id: "c1", name: "fixture_echo", input: { text: "hey" } }],
      },
      text("Echoed."),
    );
    await controller.prompt("echo hey");
    assert.match(JSON.stringify(server.requests[1]!.body), /echo: hey/);
    await controller.extensions!.runCommand("greet", "you");
    assert.ok(notices.some((n) => n.startsWith("hello you from print")), notices.join("\n"));
  }, ["-e", fixture]);
});

Deno.test("controller: the reasoning level of a model given by --api/--base-url can change", async () => {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-controller-home-" });
  try {
    const argv = ["--api", "openai-chat", "--base-url", server.openaiBaseUrl, "-m", "m1"];
    const controller = await SessionController.open(parseArgs(argv) as ChatArgs, {
      cwd: home,
      pantoHome: home,
    });
    try {
      controller.setThinkingLevel("high");
      assert.deepEqual(controller.state().model, {
        alias: "m1",
        api: "openai-chat",
        model: "m1",
        reasoning: "high",
      });
      server.enqueue(text("Thought hard."));
      await controller.prompt("think");
      assert.equal(server.requests[0]!.path, "/v1/chat/completions");
      assert.equal(
        (server.requests[0]!.body as { reasoning_effort?: string }).reasoning_effort,
        "high",
      );
    } finally {
      await controller.close();
    }
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("controller: a prompt left unanswered is offered, not resent, after a switch", async () => {
  await withController(async ({ server, controller }) => {
    server.enqueue(text("Answered."));
    await controller.prompt("answered question");
    const id = controller.session.id;
    await controller.newSession();
    assert.equal(controller.danglingPrompt, undefined);
    // As a crash right after sending leaves it: the prompt saved, no answer.
    await saveUnansweredPrompt(controller, id, "LOST-PROMPT");
    await controller.switchSession(id);
    assert.equal(controller.danglingPrompt, "LOST-PROMPT");
    assert.equal(controller.state().danglingPrompt, "LOST-PROMPT");
    assert.doesNotMatch(JSON.stringify(controller.agent.conversation.messages), /LOST-PROMPT/);
    server.enqueue(text("Next."));
    await controller.prompt("next question");
    assert.doesNotMatch(JSON.stringify(server.requests.at(-1)!.body), /LOST-PROMPT/);
    assert.equal(controller.danglingPrompt, undefined);
  });
});

Deno.test("controller: fork after an abandoned prompt copies the conversation up to the point asked", async () => {
  await withController(async ({ server, controller }) => {
    server.enqueue(text("Answered."));
    await controller.prompt("answered question");
    const id = controller.session.id;
    await controller.newSession();
    await saveUnansweredPrompt(controller, id, "LOST-PROMPT");
    await controller.switchSession(id);
    server.enqueue(text("Next."));
    await controller.prompt("next question"); // LOST-PROMPT is abandoned: in the store, not the conversation
    const texts = (messages: readonly Message[] | undefined) =>
      (messages ?? []).slice(1).map((m) => messageText(m));

    const whole = await controller.fork();
    assert.deepEqual(texts((await controller.store.load(whole))?.messages), [
      "answered question",
      "Answered.",
      "LOST-PROMPT",
      "next question",
      "Next.",
    ]);
    assert.deepEqual(texts(controller.agent.conversation.messages), [
      "answered question",
      "Answered.",
      "next question",
      "Next.",
    ]);
    await controller.fork(4); // system, answered question, Answered., next question
    assert.deepEqual(texts(controller.agent.conversation.messages), [
      "answered question",
      "Answered.",
    ]);
    assert.equal(controller.danglingPrompt, "next question");
  });
});

Deno.test("controller: takeLastQueued gives back the latest queued prompt, steering or follow-up", async () => {
  await withController(async ({ server, controller, events }) => {
    server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
    const run = controller.prompt("busy");
    await waitFor("the first request", () => server.requests.length === 1);
    controller.steer("s1");
    controller.followUp("f1");
    controller.steer("s2");
    controller.queueShell("ls");
    assert.equal(controller.takeLastQueued(), "!ls");
    assert.equal(controller.takeLastQueued(), "s2");
    assert.deepEqual(events.findLast((e) => e.type === "queue_update"), {
      type: "queue_update",
      steering: ["s1"],
      followUp: ["f1"],
    });
    assert.equal(controller.takeLastQueued(), "f1");
    assert.equal(controller.takeLastQueued(), "s1");
    assert.equal(controller.takeLastQueued(), undefined);
    controller.abort();
    await run;
    await controller.idle();
    assert.equal(server.requests.length, 1, "nothing taken back was sent");
  });
});

Deno.test("controller: cost prices each message at its own model; a new session starts at 0", async () => {
  const models = {
    fast: { provider: "fakeopenai", model: "fast-model", price: { input: 1e6, output: 1e6 } },
    smart: { provider: "fakeanthropic", model: "smart-model", price: { input: 0, output: 0 } },
  };
  await withController(
    async ({ server, controller }) => {
      server.enqueue(text("Priced."));
      await controller.prompt("hi");
      const usage = controller.state().usage;
      const tokens = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens +
        usage.cacheWriteTokens;
      assert.ok(tokens > 0, "the fake server reports usage");
      const spent = controller.state().cost;
      assert.ok(spent !== undefined && spent > 0);
      controller.setModel("smart");
      assert.equal(controller.state().cost, spent, "the free model does not reprice the answer");
      server.enqueue(text("Free."));
      await controller.prompt("again");
      assert.equal(controller.state().cost, spent, "the free model's answer costs nothing");
      const id = controller.session.id;
      await controller.newSession();
      assert.equal(controller.state().cost, 0);
      await controller.switchSession(id);
      assert.equal(controller.state().cost, spent);
    },
    [],
    { models },
  );
});

Deno.test("controller: the session's name is the session's: a move in the tree keeps it", async () => {
  await withController(async ({ server, controller }) => {
    server.enqueue(text("A1"));
    await controller.prompt("q1");
    server.enqueue(text("A2"));
    await controller.prompt("q2");
    await controller.nameSession("Parser work");
    const a1 = allNodes((await controller.sessionTree()).roots).find((n) => n.preview === "A1")!;
    await controller.branch(a1.id);
    assert.equal(controller.state().sessionName, "Parser work");
    await controller.branch(null);
    assert.equal(controller.state().sessionName, "Parser work", "even before the first entry");
  });
});

Deno.test("controller: usage and cost are the whole session's: every branch and the branch summary", async () => {
  const models = {
    fast: { provider: "fakeopenai", model: "fast-model", price: { input: 1e6, output: 1e6 } },
  };
  await withController(
    async ({ server, controller }) => {
      const outputTokens = () => controller.state().usage.outputTokens;
      server.enqueue(text("A1"));
      await controller.prompt("q1");
      server.enqueue(text("A2"));
      await controller.prompt("q2");
      const both = { cost: controller.state().cost!, tokens: outputTokens() };
      assert.ok(both.cost > 0 && both.tokens > 0);
      const a1 = allNodes((await controller.sessionTree()).roots).find((n) => n.preview === "A1")!;

      server.enqueue(text("They asked q2."));
      await controller.branch(a1.id, { summarise: true });
      const summarised = { cost: controller.state().cost!, tokens: outputTokens() };
      assert.ok(summarised.cost > both.cost, "the branch left and the summary still count");
      assert.ok(summarised.tokens > both.tokens);

      server.enqueue(text("A3"));
      await controller.prompt("q3");
      const total = { cost: controller.state().cost!, tokens: outputTokens() };
      assert.ok(total.cost > summarised.cost && total.tokens > summarised.tokens);

      // Read back from the store, the summary's usage is on the prompt it went with.
      const id = controller.session.id;
      await controller.newSession();
      assert.equal(controller.state().cost, 0);
      await controller.switchSession(id);
      assert.ok(Math.abs(controller.state().cost! - total.cost) < 1e-9);
      assert.equal(outputTokens(), total.tokens);
      await controller.branch(a1.id);
      assert.ok(Math.abs(controller.state().cost! - total.cost) < 1e-9, "on any branch");
    },
    [],
    { models },
  );
});
