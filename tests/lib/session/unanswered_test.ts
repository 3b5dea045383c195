import assert from "node:assert/strict";
import { Agent, type Message, messageText } from "@panto/lib";
import { SQLiteStore } from "@panto/lib/sqlite";
import { splitUnanswered } from "../../../lib/session/unanswered.ts";
import { drain, fakeServerConfig, textTurn } from "../../support/agent_fixtures.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { assistant, message, persistent, user } from "./fixtures.ts";

const system = (text: string) => message("system", [{ type: "system", text, mode: "append" }]);
const tool = () =>
  message("tool", [{
    type: "tool_result",
    toolUseId: "c1",
    toolName: "ls",
    content: [{ type: "text", text: "a.txt" }],
    isError: false,
  }]);
const summary = () => message("user", [{ type: "compaction_summary", summary: "S" }]);
const callTool = () =>
  message("assistant", [{ type: "tool_use", id: "c1", name: "ls", input: {} }], {
    stopReason: "tool_use",
  });

function texts(messages: readonly Message[]): string[] {
  return messages.map((m) =>
    m.content[0]?.type === "compaction_summary" ? "[summary]" : messageText(m) || m.role
  );
}

Deno.test("splitUnanswered: a trailing prompt is dangling, system entries after it aside", () => {
  const split = splitUnanswered([user("q"), assistant("a"), user("lost"), system("reconciled")]);
  assert.deepStrictEqual(texts(split.messages), ["q", "a", "system"]);
  assert.equal(messageText(split.danglingUser!), "lost");
});

Deno.test("splitUnanswered: an abandoned prompt in the middle is left out", () => {
  const split = splitUnanswered([
    user("q"),
    assistant("a"),
    user("lines 2000"),
    system("reconciled"),
    user("are you there"),
    assistant("yes"),
  ]);
  assert.deepStrictEqual(texts(split.messages), ["q", "a", "system", "are you there", "yes"]);
  assert.equal(split.danglingUser, undefined);
});

Deno.test("splitUnanswered: steering messages after tool results stay, even several or last", () => {
  const steered = [
    user("q"),
    callTool(),
    tool(),
    user("steer 1"),
    user("steer 2"),
    assistant("ok"),
  ];
  assert.deepStrictEqual(splitUnanswered(steered).messages, steered);
  const cut = steered.slice(0, 5);
  assert.deepStrictEqual(splitUnanswered(cut), { messages: cut });
});

Deno.test("splitUnanswered: a compaction summary and its kept prompt copy are answered later", () => {
  const log = [user("q"), summary(), user("q copy"), assistant("a")];
  assert.deepStrictEqual(splitUnanswered(log), { messages: log });
  const answered = [user("q"), assistant("a")];
  assert.deepStrictEqual(splitUnanswered(answered), { messages: answered });
  assert.deepStrictEqual(splitUnanswered([]), { messages: [] });
});

Deno.test("Agent.continue answers a dangling prompt put back, without storing it twice", async () => {
  const server = await FakeLlmServer.start();
  const store = new SQLiteStore({ path: ":memory:" });
  try {
    server.enqueue(textTurn("here I am"));
    const session = store.create();
    await session.append(persistent(user("q"), assistant("a"), user("are you there")));
    const resumed = (await store.resolve(session.id))!;
    const { conversation, danglingUser } = await resumed.loadWithDangling();
    const config = fakeServerConfig(server, "anthropic-messages", "k");
    const idle = new Agent({ config, session: resumed, conversation });
    assert.throws(
      () => idle.continue(),
      /Nothing to continue: the conversation ends with an assistant message/,
    );

    conversation.messages.push(danglingUser!);
    const events = await drain(new Agent({ config, session: resumed, conversation }).continue());
    const start = events[0];
    assert.ok(start?.type === "run_start");
    assert.equal(messageText(start.message), "are you there");
    const sent = JSON.stringify(server.requests[0]!.body);
    assert.equal(sent.split("are you there").length - 1, 1, "the prompt is sent once");
    const stored = (await store.load(session.id))!.messages;
    assert.deepStrictEqual(texts(stored), ["q", "a", "are you there", "here I am"]);
  } finally {
    await store.close();
    await server.close();
  }
});
