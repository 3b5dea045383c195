/**
 * A prompt interrupted (abort) or failed before any answer is never sent
 * again unless the user sends it: the next request does not carry it, in
 * the same process or after a resume; it stays in the session and is
 * offered as the dangling prompt. A partial answer keeps its prompt.
 */
import assert from "node:assert/strict";
import { messageText } from "@panto/lib";
import { type ChatArgs, parseArgs } from "../../../cli/setup/args.ts";
import type { ControllerEvent } from "../../../cli/controller/controller_events.ts";
import { SessionController } from "../../../cli/controller/session_controller.ts";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer, type FakeReply } from "../../support/fake_llm_server.ts";
import { requestMessages, stalledReply, textReply } from "../../support/fake_replies.ts";

const INTERRUPTED = "hang DELETE EVERYTHING";

/** A reply that sends nothing at all until the client leaves. */
const SILENT: FakeReply = { kind: "stall", afterBytes: 0, source: { kind: "sse", body: "" } };

interface Fixture {
  server: FakeLlmServer;
  home: string;
  project: string;
}

async function withFixture(body: (fixture: Fixture) => Promise<void>): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-interrupted-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-interrupted-project-" });
  try {
    await writeFakeConfig(home, server, { retry: { maxRetries: 0 } });
    await body({ server, home, project });
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
}

async function withController(
  { home, project }: Fixture,
  argv: readonly string[],
  body: (controller: SessionController, events: ControllerEvent[]) => Promise<void>,
): Promise<void> {
  const controller = await SessionController.open(parseArgs(argv) as ChatArgs, {
    cwd: project,
    pantoHome: home,
  });
  const events: ControllerEvent[] = [];
  controller.subscribe((event) => events.push(event));
  try {
    await body(controller, events);
  } finally {
    await controller.close();
  }
}

/** Waits (generously: the machine may be busy) until `done` holds. */
async function waitFor(what: string, done: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Sends `prompt` to a server that stays silent, and aborts once the request arrived. */
async function interrupt(
  server: FakeLlmServer,
  controller: SessionController,
  prompt: string,
): Promise<void> {
  const before = server.requests.length;
  server.enqueue(SILENT);
  const run = controller.prompt(prompt);
  await waitFor("the request", () => server.requests.length > before);
  controller.abort();
  assert.equal((await run).status, "aborted");
}

Deno.test("controller: a prompt aborted before any answer is not sent with the next one", async () => {
  await withFixture(async (fixture) => {
    const { server } = fixture;
    await withController(fixture, [], async (controller) => {
      server.enqueue(textReply("Hello."));
      await controller.prompt("hi");
      await interrupt(server, controller, INTERRUPTED);
      assert.equal(controller.danglingPrompt, INTERRUPTED, "offered back to the user");
      assert.equal(controller.state().danglingPrompt, INTERRUPTED);

      server.enqueue(textReply("4"));
      assert.equal((await controller.prompt("what is 2+2")).status, "done");
      const sent = requestMessages(server, 2);
      assert.doesNotMatch(sent, /DELETE EVERYTHING/);
      assert.match(sent, /Hello\./, "the earlier exchange is still there");
      assert.match(sent, /what is 2\+2/);
      assert.equal(controller.danglingPrompt, undefined, "cleared by the next prompt");
      // It stays in the session as the user's message.
      const saved = await controller.store.load(controller.session.id);
      assert.ok(saved?.messages.some((m) => messageText(m) === INTERRUPTED));
    });
  });
});

Deno.test("controller: a failed request's prompt is not sent again, here nor after a resume", async () => {
  await withFixture(async (fixture) => {
    const { server } = fixture;
    await withController(fixture, [], async (controller) => {
      server.enqueue(textReply("Hello."));
      await controller.prompt("hi");
      server.enqueue({ kind: "http_error", status: 400, body: { error: { message: "bad" } } });
      assert.equal((await controller.prompt(INTERRUPTED)).status, "failed");
      assert.equal(controller.danglingPrompt, INTERRUPTED);
      server.enqueue(textReply("4"));
      await controller.prompt("what is 2+2");
      assert.doesNotMatch(requestMessages(server, 2), /DELETE EVERYTHING/);
      await interrupt(server, controller, `${INTERRUPTED} AGAIN`);
    });
    // A new process resumes the session: the interrupted prompt is still left out.
    await withController(fixture, ["-c"], async (controller) => {
      server.enqueue(textReply("5"));
      await controller.prompt("and 2+3");
      const sent = requestMessages(server, server.requests.length - 1);
      assert.doesNotMatch(sent, /DELETE EVERYTHING/);
      assert.match(sent, /what is 2\+2/);
    });
  });
});

Deno.test("controller: a partial answer keeps its prompt, each in its own message", async () => {
  await withFixture(async (fixture) => {
    const { server } = fixture;
    await withController(fixture, [], async (controller, events) => {
      server.enqueue(stalledReply("Once upon a time"));
      const run = controller.prompt("write an essay");
      await waitFor(
        "the partial answer",
        () => events.some((e) => e.type === "content_delta" && e.text.includes("Once")),
      );
      controller.abort();
      assert.equal((await run).status, "aborted");
      assert.equal(controller.danglingPrompt, undefined, "it got an answer, partial as it is");

      server.enqueue(textReply("Shorter."));
      await controller.prompt("shorter");
      const sent = server.requests[1]?.body as { messages: { role: string }[] };
      const texts = sent.messages.filter((m) => m.role !== "system").map((m) => JSON.stringify(m));
      assert.equal(texts.length, 3, texts.join("\n"));
      assert.match(texts[0]!, /write an essay/);
      assert.doesNotMatch(texts[0]!, /shorter/, "not merged with the next prompt");
      assert.match(texts[1]!, /"assistant".*Once upon a time/);
      assert.match(texts[2]!, /shorter/);
    });
  });
});
