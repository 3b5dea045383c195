import type { ApiName } from "../config.ts";
import type { StreamMessage } from "./provider.ts";

/**
 * A built-in provider whose module loads on its first request: a start
 * that talks to one API does not read the other four (their request
 * builders, parsers and, for Bedrock, the AWS codec).
 */
function loadedOnUse(load: () => Promise<StreamMessage>): StreamMessage {
  let loading: Promise<StreamMessage> | undefined;
  return async function* (request) {
    loading ??= load();
    return yield* (await loading)(request);
  };
}

/** Process-wide: the protocol names `ProviderConfig.api` may use. */
const PROVIDERS = new Map<string, StreamMessage>([
  [
    "anthropic-messages",
    loadedOnUse(async () => (await import("./anthropic_messages.ts")).streamAnthropicMessages),
  ],
  ["openai-chat", loadedOnUse(async () => (await import("./openai_chat.ts")).streamOpenAIChat)],
  [
    "google-generative-ai",
    loadedOnUse(async () => (await import("./google_generative_ai.ts")).streamGoogleGenerativeAI),
  ],
  [
    "openai-responses",
    loadedOnUse(async () => (await import("./openai_responses.ts")).streamOpenAIResponses),
  ],
  [
    "bedrock-converse",
    loadedOnUse(async () => (await import("./bedrock_converse.ts")).streamBedrockConverse),
  ],
]);

/**
 * Adds a wire protocol, or replaces one (a built-in included), under a name
 * that `ProviderConfig.api` can then use. The registry is process-wide; to
 * give a single agent its own provider, pass `provider` to the `Agent`
 * instead.
 *
 * @param api The protocol's name, e.g. `"my-gateway"`.
 * @param stream Streams one assistant message (see {@linkcode StreamMessage}).
 * @returns A function that restores what the name meant before (nothing, or the replaced provider).
 * @throws {TypeError} When `api` is empty.
 *
 * @example Register a protocol that always answers "pong"
 * ```ts
 * import { Agent, emptyUsage, registerProvider } from "@panto/lib";
 * const unregister = registerProvider("pong", async function* () {
 *   return { content: [{ type: "text", text: "pong" }], usage: emptyUsage(), stopReason: "end_turn" };
 * });
 * const agent = new Agent({
 *   config: { provider: { api: "pong", baseUrl: "", model: "pong-1", reasoning: "off" } },
 * });
 * for await (const _ of agent.run("ping"));
 * console.assert(agent.conversation.messages.at(-1)?.content[0]?.type === "text");
 * unregister();
 * ```
 */
export function registerProvider(api: string, stream: StreamMessage): () => void {
  if (api.trim() === "") {
    throw new TypeError(
      'Cannot register a provider under an empty API name: use e.g. "my-gateway"',
    );
  }
  const previous = PROVIDERS.get(api);
  PROVIDERS.set(api, stream);
  return () => {
    if (PROVIDERS.get(api) !== stream) return; // replaced again since: leave the newer one
    if (previous) PROVIDERS.set(api, previous);
    else PROVIDERS.delete(api);
  };
}

/**
 * The provider registered for a wire protocol.
 *
 * @param api The protocol's name.
 * @returns Its streaming function.
 * @throws {TypeError} Naming the unknown protocol and the registered ones.
 */
export function streamForApi(api: ApiName): StreamMessage {
  const stream = PROVIDERS.get(api);
  if (!stream) {
    const known = [...PROVIDERS.keys()].map((name) => JSON.stringify(name)).join(", ");
    throw new TypeError(
      `Unknown API style ${
        JSON.stringify(api)
      }: use one of ${known}, or add it with registerProvider()`,
    );
  }
  return stream;
}
