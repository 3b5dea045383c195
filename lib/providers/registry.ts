import type { ApiStyle } from "../config.ts";
import { streamAnthropicMessages } from "./anthropic_messages.ts";
import { streamOpenAIChat } from "./openai_chat.ts";
import type { StreamMessage } from "./provider.ts";

const PROVIDERS: Record<ApiStyle, StreamMessage> = {
  "anthropic-messages": streamAnthropicMessages,
  "openai-chat": streamOpenAIChat,
};

/**
 * The provider implementation for a wire protocol.
 *
 * @param api The protocol.
 * @returns Its streaming function.
 */
export function streamForApi(api: ApiStyle): StreamMessage {
  const stream = PROVIDERS[api];
  if (!stream) {
    throw new TypeError(
      `Unknown API style ${JSON.stringify(api)}: use "anthropic-messages" or "openai-chat"`,
    );
  }
  return stream;
}
