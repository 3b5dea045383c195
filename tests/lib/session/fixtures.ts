import type {
  ContentBlock,
  Message,
  PersistentMessage,
  ProviderConfig,
  Usage,
  WireIdentity,
} from "@panto/lib";
import { wireIdentity } from "@panto/lib";

/** A provider config holding a recognisable key that must never be stored. */
export const SECRET_KEY = "sk-test-SECRET-KEY-1234567890";

/** The provider the fixtures pretend to talk to. */
export const PROVIDER: ProviderConfig = {
  api: "anthropic-messages",
  baseUrl: "https://api.anthropic.test",
  model: "claude-fixture-1",
  reasoning: "high",
  apiKey: SECRET_KEY,
  headers: { "x-api-key": SECRET_KEY },
};

/** The wire identity derived the way the agent derives it. */
export const WIRE: WireIdentity = wireIdentity(PROVIDER);

/** A usage record with distinct counts. */
export const USAGE: Usage = {
  inputTokens: 11,
  outputTokens: 22,
  cacheReadTokens: 33,
  cacheWriteTokens: 44,
  reasoningTokens: 5,
};

let clock = Date.parse("2025-01-01T00:00:00.000Z");

/** A message with a unique, increasing timestamp. */
export function message(
  role: Message["role"],
  content: ContentBlock[],
  extra: Partial<Message> = {},
): Message {
  clock += 1000;
  return { role, content, timestamp: new Date(clock).toISOString(), ...extra };
}

/** A user message with one text block. */
export function user(text: string): Message {
  return message("user", [{ type: "text", text }]);
}

/** An assistant message with one text block and usage. */
export function assistant(text: string): Message {
  return message("assistant", [{ type: "text", text }], { usage: USAGE, stopReason: "end_turn" });
}

/** Wraps messages the way the agent does: wire and usage on assistant messages, provenance on all. */
export function persistent(...messages: Message[]): PersistentMessage[] {
  return messages.map((msg, index) => {
    const entry: PersistentMessage = {
      message: msg,
      conversation: messages.slice(0, index + 1),
      toolsAvailable: [{
        name: "read",
        description: "Read a file",
        inputSchema: { type: "object" },
      }],
    };
    if (msg.role === "assistant") {
      entry.wire = WIRE;
      if (msg.usage) entry.usage = msg.usage;
    }
    return entry;
  });
}

const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** One message of every kind and every block type, with metadata and usage. */
export function everyKindOfMessage(): Message[] {
  return [
    message("system", [{ type: "system", text: "You are terse.", mode: "append" }]),
    message("system", [{ type: "system", text: "You are very terse.", mode: "replace" }]),
    message("user", [{ type: "text", text: "Look at this" }, {
      type: "image",
      mediaType: "image/png",
      data: PNG_1X1,
    }], { metadata: '{"live":["m1","m2"]}' }),
    message("assistant", [
      { type: "thinking", thinking: "Let me think.", signature: "sig-abc==" },
      { type: "thinking", thinking: "No signature here." },
      { type: "redacted_thinking", data: "ZW5jcnlwdGVk" },
      { type: "text", text: "I'll read it." },
      { type: "tool_use", id: "call_1", name: "read", input: { path: "a.txt", n: [1, 2.5, null] } },
      { type: "tool_use", id: "call_2", name: "read", input: {}, invalidInput: '{"path": "b.t' },
    ], {
      usage: USAGE,
      stopReason: "tool_use",
      api: PROVIDER.api,
      model: PROVIDER.model,
      metadata: '{"turn":1}',
    }),
    message("tool", [
      {
        type: "tool_result",
        toolUseId: "call_1",
        toolName: "read",
        content: [{ type: "text", text: "file body ```with fences```" }, {
          type: "image",
          mediaType: "image/png",
          data: PNG_1X1,
        }],
        isError: false,
      },
      {
        type: "tool_result",
        toolUseId: "call_2",
        toolName: "read",
        content: [{ type: "text", text: "invalid arguments" }],
        isError: true,
      },
    ]),
    message("user", [{
      type: "compaction_summary",
      summary: "We read a.txt.",
      tokensBefore: 1234,
      keptMessages: 2,
    }]),
    message("user", [{ type: "compaction_summary", summary: "No token count." }]),
    message("assistant", [{ type: "text", text: "Partial" }], {
      stopReason: "aborted",
      errorMessage: "cancelled by the user",
      usage: USAGE,
      api: "my-gateway",
      model: "gateway-model",
    }),
  ];
}
