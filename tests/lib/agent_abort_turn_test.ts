/**
 * An aborted prompt is never merged into the next one: whatever the point
 * of the abort, its turn ends with an `aborted` answer, the next prompt
 * starts a turn of its own, and a resumed session sends what the live
 * agent would have sent.
 */
import assert from "node:assert/strict";
import {
  Agent,
  type AgentEvent,
  type Config,
  type Message,
  messageText,
  ProviderError,
  ResultParts,
  scriptedProvider,
  type ScriptedReply,
  type Tool,
} from "@panto/lib";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";

const CONFIG: Config = {
  provider: { api: "openai-chat", baseUrl: "http://localhost:1/v1", model: "m", reasoning: "off" },
  retry: { baseDelayMs: 60_000 },
};

/** A tool that runs until the run is aborted. */
const waitsForAbort: Tool = {
  decl: { name: "wait", description: "waits", inputSchema: { type: "object" } },
  execute: (_input, context) =>
    new Promise((resolve) =>
      context.signal.addEventListener(
        "abort",
        () => resolve(ResultParts.fromText("stopped")),
        { once: true },
      )
    ),
};

const call = { type: "tool_use" as const, id: "c1", name: "wait", input: {} };

interface AbortPoint {
  name: string;
  /** The reply to the aborted prompt. */
  reply: ScriptedReply;
  /** The event on which the run is cancelled. */
  on: AgentEvent["type"];
  /** Whether the aborted prompt was answered (a tool call), so stays in the context. */
  answered: boolean;
}

const POINTS: AbortPoint[] = [
  {
    name: "before any block",
    reply: { content: "x", waitForAbortAfter: 0 },
    on: "message_start",
    answered: false,
  },
  {
    name: "after a tool call streamed",
    reply: { content: [call], waitForAbortAfter: 1 },
    on: "block_complete",
    answered: false,
  },
  {
    name: "while waiting to retry",
    reply: new ProviderError("overloaded", "busy"),
    on: "provider_retry",
    answered: false,
  },
  { name: "while its tool runs", reply: [call], on: "tool_dispatch_start", answered: true },
];

/** What a request carried, one line per message; tool results as `(results)`. */
function shown(messages: readonly Message[]): string[] {
  return messages.map((m) => `${m.role}: ${m.role === "tool" ? "(results)" : messageText(m)}`);
}

for (const point of POINTS) {
  Deno.test(`an abort ${point.name} ends its turn: the next prompt is its own, live and resumed`, async () => {
    const dir = await Deno.makeTempDir();
    const store = new FileSystemJSONLStore({ dir });
    try {
      const session = store.create();
      const live = scriptedProvider([point.reply, "live answer"]);
      const agent = new Agent({ config: CONFIG, session, provider: live });
      agent.registerTool(waitsForAbort);
      const stream = agent.run("FIRST");
      for await (const event of stream) if (event.type === point.on) stream.cancel();
      assert.equal(stream.state, "aborted");
      assert.equal(agent.conversation.messages.at(-1)?.stopReason, "aborted");
      assert.equal(session.info.state?.status, "idle", "the aborted turn is over in the store");

      // Resumed from what was stored (sent through a session of its own, to compare).
      const reader = new FileSystemJSONLStore({ dir });
      const loaded = await (await reader.resolve(session.id))!.loadWithDangling();
      await reader.close();
      assert.equal(loaded.danglingUser, undefined);
      const later = scriptedProvider(["resumed answer"]);
      const resumed = new Agent({
        config: CONFIG,
        conversation: loaded.conversation,
        provider: later,
      });
      for await (const _ of resumed.run("SECOND"));
      // The live agent goes on.
      for await (const _ of agent.run("SECOND"));

      const live2 = shown(live.requests[1]!.messages);
      const resumed2 = shown(later.requests[0]!.messages);
      assert.deepEqual(resumed2, live2, "the same context live and after a resume");
      assert.equal(resumed2.at(-1), "user: SECOND", "SECOND is a message of its own");
      assert.equal(resumed2.some((line) => line.includes("FIRST")), point.answered);
    } finally {
      await store.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
