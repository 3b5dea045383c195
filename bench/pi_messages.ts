/**
 * Messages in pi's session format (`@mariozechner/pi-coding-agent`), so the
 * benches give pi the same data as panto.
 */

/**
 * An assistant message as pi stores it, with a fixed usage record.
 *
 * @param text The answer.
 * @param model Model name recorded with it.
 * @param provider Provider name recorded with it.
 * @returns The message object.
 */
export function piAssistantMessage(text: string, model: string, provider: string) {
  return {
    role: "assistant" as const,
    content: [{ type: "text" as const, text }],
    api: "anthropic-messages" as const,
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
    stopReason: "stop" as const,
    timestamp: Date.now(),
  };
}
