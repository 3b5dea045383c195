/**
 * An agent driven like a chat with `AgentSession` (`@panto/lib`): a prompt
 * awaited for its outcome, a follow-up queued while it runs, a steering
 * message that reaches the running prompt at its next tool call, a model
 * switch between runs, and a compaction. A scripted model answers, so it
 * runs offline.
 *
 *     deno run examples/chat_session.ts
 *
 * @module
 */
import { Agent, AgentSession, messageText, ResultParts, scriptedProvider } from "@panto/lib";

const provider = scriptedProvider([
  [{ type: "tool_use", id: "1", name: "look", input: {} }],
  "The room has a lamp. (And yes, I will keep it short.)",
  "It is a desk lamp.",
  "Summary: the user asked about a room with a lamp.",
  "Summary: the last question was about the lamp.",
  "Still a desk lamp.",
]);
const model = { api: "openai-chat", baseUrl: "http://localhost/v1", reasoning: "off" } as const;
const agent = new Agent({
  config: { provider: { ...model, model: "small" }, compaction: { keepRecentTokens: 1 } },
  provider,
});
agent.registerTool({
  decl: { name: "look", description: "Look around", inputSchema: { type: "object" } },
  execute: () => {
    chat.steer("Keep it short."); // e.g. typed by the user while the tool works
    return ResultParts.fromText("a lamp");
  },
});

const chat = new AgentSession(agent);
chat.subscribe((event) => {
  if (event.type === "steer_applied") console.log("(steering applied)");
  if (event.type === "config_changed") console.log(`(model: ${event.config.provider.model})`);
  if (event.type === "message_complete" && event.message.role === "assistant") {
    const text = messageText(event.message);
    if (text) console.log(`assistant: ${text}`);
  }
});

const first = chat.prompt("What is in the room?");
const second = chat.followUp("What kind of lamp?"); // waits for the first
console.log(`first: ${(await first).status}, second: ${(await second).status}`);
chat.setModel({ ...model, model: "large" });
const compacted = await chat.compact();
console.log(`compacted: ${compacted?.tokensBefore} → ${compacted?.tokensAfter} tokens`);
await chat.prompt("And now?");
console.log(`models asked: ${provider.requests.map((r) => r.config.model).join(", ")}`);
