import assert from "node:assert/strict";
import {
  Agent,
  AgentSession,
  AgentSessionBusyError,
  type AgentSessionEvent,
  type AgentSessionHooks,
  messageText,
  ResultParts,
  scriptedProvider,
  type ScriptedReply,
} from "@panto/lib";

const PROVIDER = {
  api: "openai-chat",
  baseUrl: "http://localhost/v1",
  model: "first-model",
  reasoning: "off",
} as const;

/** An agent on a script, its session, and every event the session reported. */
function chatOn<Work extends string = never>(
  replies: readonly ScriptedReply[],
  hooks: AgentSessionHooks = {},
) {
  const provider = scriptedProvider(replies);
  const agent = new Agent({
    config: { provider: PROVIDER, compaction: { keepRecentTokens: 10 } },
    provider,
  });
  const chat = new AgentSession<Work>(agent, hooks);
  const events: AgentSessionEvent[] = [];
  chat.subscribe((event) => events.push(event));
  return { provider, agent, chat, events };
}

/** A tool whose call waits until `release` is called, so a test can act while a run is busy. */
function gate() {
  const { promise, resolve } = Promise.withResolvers<void>();
  const started = Promise.withResolvers<void>();
  return {
    release: () => resolve(),
    started: started.promise,
    tool: {
      decl: { name: "wait", description: "Waits", inputSchema: { type: "object" } },
      execute: async () => {
        started.resolve();
        await promise;
        return ResultParts.fromText("waited");
      },
    },
  };
}

const CALL_WAIT: ScriptedReply = [{ type: "tool_use", id: "c1", name: "wait", input: {} }];

/**
 * A chat whose first prompt (`text`) is running, held at a tool call until
 * `release`; `replies` answer after it.
 */
async function busyChat<Work extends string = never>(
  text: string,
  replies: readonly ScriptedReply[],
  hooks: AgentSessionHooks = {},
) {
  const on = chatOn<Work>([CALL_WAIT, ...replies], hooks);
  const { tool, release, started } = gate();
  on.agent.registerTool(tool);
  const first = on.chat.prompt(text);
  await started;
  return { ...on, release, first };
}

Deno.test("a prompt resolves with its outcome; a second prompt meanwhile is refused", async () => {
  const { agent, chat, release, first } = await busyChat("wait for me", ["done waiting"]);
  assert.equal(chat.busy, true);
  await assert.rejects(chat.prompt("me too"), AgentSessionBusyError);
  assert.throws(() => chat.setModel({ ...PROVIDER, model: "other" }), AgentSessionBusyError);
  release();
  assert.deepEqual(await first, { status: "done", turnLimitReached: false });
  assert.equal(chat.busy, false);
  assert.equal(messageText(agent.conversation.messages.at(-1)!), "done waiting");
});

Deno.test("follow-ups run after the current run, in order, each awaitable", async () => {
  const { agent, chat, events, release, first } = await busyChat("first", ["one", "two", "three"]);
  const second = chat.followUp("second");
  const third = chat.followUp("third");
  assert.deepEqual(chat.queue.followUp.map((m) => m.text), ["second", "third"]);
  release();
  assert.equal((await first).status, "done");
  assert.equal((await second).status, "done");
  assert.equal((await third).status, "done");
  const prompts = events.flatMap((e) => e.type === "prompt" ? [[e.message.text, e.followUp]] : []);
  assert.deepEqual(prompts, [["first", false], ["second", true], ["third", true]]);
  const answers = agent.conversation.messages.filter((m) => m.role === "assistant").map(
    messageText,
  );
  assert.deepEqual(answers.slice(-3), ["one", "two", "three"]);
  await chat.idle();
});

Deno.test("steering reaches the running run at its next tool boundary", async () => {
  const { provider, chat, events, release, first: run } = await busyChat("start", ["steered"]);
  chat.steer("only the top level");
  release();
  await run;
  assert.ok(events.some((e) => e.type === "steer_applied"));
  const lastSent = provider.requests[1]!.messages.at(-1)!;
  assert.equal(lastSent.role, "user");
  assert.equal(messageText(lastSent), "only the top level");
  assert.equal(provider.requests.length, 2, "no extra run for the steering message");
});

Deno.test("setModel switches the model for the next run and reports it", async () => {
  const { provider, chat, events } = chatOn(["a", "b"]);
  await chat.prompt("one");
  chat.setModel({ ...PROVIDER, model: "second-model" });
  await chat.prompt("two");
  assert.deepEqual(provider.requests.map((r) => r.config.model), ["first-model", "second-model"]);
  assert.ok(
    events.some((e) => e.type === "config_changed" && e.config.provider.model === "second-model"),
  );
});

Deno.test("takeQueue empties the queue and its follow-ups resolve aborted", async () => {
  const { agent, chat, release, first } = await busyChat("first", ["done"]);
  const dropped = chat.followUp("never sent");
  chat.steer("nor this");
  assert.deepEqual(chat.takeQueue().map((m) => m.text), ["nor this", "never sent"]);
  assert.deepEqual(await dropped, { status: "aborted", turnLimitReached: false });
  release();
  await first;
  await chat.idle();
  assert.equal(agent.conversation.messages.filter((m) => m.role === "user").length, 1);
});

Deno.test("abort ends the run as aborted; a failing run is an outcome, not a rejection", async () => {
  const { chat, first: run } = await busyChat("start", []);
  chat.abort();
  assert.equal((await run).status, "aborted");
  const failed = await chat.prompt("the script has no reply for this");
  assert.equal(failed.status, "failed");
  assert.match(String(failed.error), /has no reply/);
});

Deno.test("compact summarises older messages between runs and reports it", async () => {
  const long = "word ".repeat(200);
  const { chat, events } = chatOn([long, long, "SUMMARY of the chat", "SUMMARY of the turn"]);
  await chat.prompt(`first ${long}`);
  await chat.prompt(`second ${long}`);
  const result = await chat.compact({ instructions: "keep it short" });
  assert.ok(result);
  assert.match(result.summary, /SUMMARY of the chat/);
  assert.ok(result.tokensAfter < result.tokensBefore);
  const types = events.map((e) => e.type).filter((t) => t.startsWith("compaction_"));
  assert.deepEqual(types, ["compaction_start", "compaction_end"]);
});

Deno.test("prepare turns a prompt into what is sent when its run starts; steering is not prepared", async () => {
  const seen: string[] = [];
  const { provider, chat, release, first: run } = await busyChat("start", ["answered"], {
    prepare: (message) => {
      seen.push(message.text);
      return Promise.resolve({ ...message, text: `${message.text} (prepared)` });
    },
  });
  chat.steer("steer as is");
  release();
  assert.equal((await run).status, "done");
  assert.deepEqual(seen, ["start"]);
  assert.equal(messageText(provider.requests[0]!.messages.at(-1)!), "start (prepared)");
  assert.equal(messageText(provider.requests[1]!.messages.at(-1)!), "steer as is");
});

Deno.test("a prepare that rejects fails the run; settle runs while still busy, before run_end", async () => {
  const agent = new Agent({ config: { provider: PROVIDER }, provider: scriptedProvider(["a"]) });
  const order: string[] = [];
  const chat: AgentSession = new AgentSession(agent, {
    prepare: () => Promise.reject(new Error("cannot read @missing.txt")),
    settle: async (outcome) => {
      order.push(`settle ${outcome.status} busy=${chat.busy}`);
      await assert.rejects(chat.prompt("squeezed in"), AgentSessionBusyError);
    },
  });
  chat.subscribe((event) => {
    if (event.type === "run_end") order.push(`run_end busy=${chat.busy}`);
  });
  const outcome = await chat.prompt("read @missing.txt");
  assert.equal(outcome.status, "failed");
  assert.match(String(outcome.error), /cannot read @missing.txt/);
  assert.deepEqual(order, ["settle failed busy=true", "run_end busy=false"]);
});

Deno.test("exclusive work refuses prompts meanwhile and sends the queued ones after it", async () => {
  const { agent, chat, events } = chatOn<"shell">(["after the work"]);
  const work = Promise.withResolvers<string>();
  const done = chat.exclusive("shell", () => work.promise);
  assert.equal(chat.activity, "shell");
  await assert.rejects(chat.prompt("too soon"), /The session is shell/);
  const followUp = chat.followUp("queued");
  assert.deepEqual(chat.queue.followUp.map((m) => m.text), ["queued"]);
  work.resolve("output");
  assert.equal(await done, "output");
  assert.equal((await followUp).status, "done");
  assert.equal(messageText(agent.conversation.messages.at(-1)!), "after the work");
  assert.ok(events.some((e) => e.type === "prompt" && e.message.text === "queued" && e.followUp));
  await chat.idle();
});

Deno.test("a queued task shows as its message, runs in turn, and is given back by takeQueue", async () => {
  const { chat, release, first } = await busyChat<"shell">("first", ["done", "next"]);
  const ran: string[] = [];
  chat.queueTask({ text: "!ls" }, "shell", () => Promise.resolve(ran.push("ls")));
  const after = chat.followUp("after ls");
  chat.queueTask({ text: "!pwd" }, "shell", () => Promise.resolve(ran.push("pwd")));
  assert.deepEqual(chat.queue.followUp.map((m) => m.text), ["!ls", "after ls", "!pwd"]);
  assert.equal(chat.takeLastQueued()?.text, "!pwd");
  release();
  await first;
  assert.equal((await after).status, "done");
  await chat.idle();
  assert.deepEqual(ran, ["ls"]);
  chat.queueTask({ text: "!date" }, "shell", () => Promise.resolve(ran.push("date")));
  await chat.idle();
  assert.deepEqual(ran, ["ls", "date"], "started at once when idle");
});

Deno.test("takeLastQueued takes the latest of steering and follow-ups; its follow-up resolves aborted", async () => {
  const { chat, release, first } = await busyChat("first", ["done"]);
  chat.steer("steer one");
  const dropped = chat.followUp("follow two");
  chat.steer("steer three");
  assert.equal(chat.takeLastQueued()?.text, "steer three");
  assert.equal(chat.takeLastQueued()?.text, "follow two");
  assert.deepEqual(await dropped, { status: "aborted", turnLimitReached: false });
  assert.deepEqual(chat.queue.steering.map((m) => m.text), ["steer one"]);
  release();
  await first;
  await chat.idle();
  assert.equal(chat.takeLastQueued(), undefined);
});

Deno.test("replaceAgent is refused during a run; what is queued goes to the new agent", async () => {
  const { chat, release, first } = await busyChat<"switching">("first", ["old done"]);
  const next = new Agent({ config: { provider: PROVIDER }, provider: scriptedProvider(["new"]) });
  assert.throws(() => chat.replaceAgent(next), AgentSessionBusyError);
  const later = chat.followUp("for the new agent");
  release();
  await first;
  // A switch of conversation as exclusive work: the follow-up waits for it.
  await chat.exclusive("switching", () => Promise.resolve(chat.replaceAgent(next)));
  assert.equal((await later).status, "done");
  assert.equal(chat.agent, next);
  assert.deepEqual(next.conversation.messages.map(messageText), ["for the new agent", "new"]);
  await chat.idle();
});
