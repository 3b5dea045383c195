/**
 * Messages in pi's session format (`@mariozechner/pi-coding-agent`), so the
 * benches give pi the same data as panto.
 */

/** Token counts and costs as pi records them. */
export interface PiUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

/** An assistant message in pi's session format. */
export interface PiAssistantMessage {
  role: "assistant";
  content: { type: "text"; text: string }[];
  api: "anthropic-messages";
  provider: string;
  model: string;
  usage: PiUsage;
  stopReason: "stop";
  timestamp: number;
}

/**
 * An assistant message as pi stores it, with a fixed usage record.
 *
 * @param text The answer.
 * @param model Model name recorded with it.
 * @param provider Provider name recorded with it.
 * @returns The message object.
 */
export function piAssistantMessage(
  text: string,
  model: string,
  provider: string,
): PiAssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider,
    model,
    usage: {
      input: 900,
      output: 120,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 1020,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: Date.now(),
  };
}
