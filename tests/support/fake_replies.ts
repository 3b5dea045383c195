/**
 * Scripted replies for the fake LLM server shared by the subprocess tests
 * of the machine-facing modes (RPC, ACP): plain text, a tool call, a stream
 * that stalls, and what a request carried.
 */
import assert from "node:assert/strict";
import type { FakeLlmServer, FakeReply } from "./fake_llm_server.ts";

/** A text answer. */
export function textReply(value: string, options: { headerDelayMs?: number } = {}): FakeReply {
  return { kind: "turn", blocks: [{ type: "text", text: value }], ...options };
}

/** An answer that is one tool call. */
export function toolCallReply(
  id: string,
  name: string,
  input: Record<string, unknown>,
): FakeReply {
  return { kind: "turn", blocks: [{ type: "tool_use", id, name, input }] };
}

/** An OpenAI stream chunk. */
function chunk(delta: Record<string, unknown>): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
}

/** A reply (OpenAI protocol) that streams `partial` and then goes silent until the client leaves. */
export function stalledReply(partial: string): FakeReply {
  const body = chunk({ role: "assistant", content: "" }) + chunk({ content: partial });
  return {
    kind: "stall",
    afterBytes: new TextEncoder().encode(body).length,
    source: { kind: "sse", body: body + chunk({ content: " never sent" }) },
  };
}

/** The messages of request `index` as the server got them, as JSON text. */
export function requestMessages(server: FakeLlmServer, index: number): string {
  const body = server.requests[index]?.body as { messages: unknown[] } | undefined;
  assert.ok(body, `request ${index} was made`);
  return JSON.stringify(body.messages);
}
