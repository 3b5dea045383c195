/**
 * Shared pieces of the agent tests: a config pointing at the fake LLM
 * server, scripted turns, an echo tool and a stream drain.
 */
import { type AgentEvent, type ApiStyle, type Config, ResultParts, type Tool } from "@panto/lib";
import type { FakeLlmServer, FakeReply, FakeSource } from "./fake_llm_server.ts";

/**
 * A config for `api` on the fake server, with fast retries.
 *
 * @param server The fake server.
 * @param api The wire protocol.
 * @param apiKey The key the requests carry.
 * @param extra Settings added on top.
 * @returns The config.
 */
export function fakeServerConfig(
  server: FakeLlmServer,
  api: ApiStyle,
  apiKey: string,
  extra: Partial<Config> = {},
): Config {
  return {
    provider: {
      api,
      baseUrl: api === "anthropic-messages" ? server.anthropicBaseUrl : server.openaiBaseUrl,
      model: "fake-model",
      reasoning: "off",
      apiKey,
    },
    retry: { baseDelayMs: 10, maxDelayMs: 2000 },
    ...extra,
  };
}

/** A reply that is one text block. */
export function textTurn(text: string): FakeSource & FakeReply {
  return { kind: "turn", blocks: [{ type: "text", text }] };
}

/** A reply that calls the given tools. */
export function toolTurn(
  ...calls: { id: string; name: string; input: Record<string, unknown> }[]
): FakeSource & FakeReply {
  return { kind: "turn", blocks: calls.map((c) => ({ type: "tool_use" as const, ...c })) };
}

/** Every event of a stream, in order. */
export async function drain(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** A tool answering `echo: <text>`. */
export const echoTool: Tool = {
  decl: {
    name: "echo",
    description: "Echo the text",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  execute: (args) => ResultParts.fromText(`echo: ${args.text}`),
};
