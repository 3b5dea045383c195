import type { Message } from "../message.ts";
import type { SessionState } from "./types.ts";

type Running = Extract<SessionState, { status: "running" | "interrupted" }>;

/**
 * The state after one more message, folded in the order messages are
 * stored. A prompt starts a turn, except one right after tool results (a
 * steering message), which continues it; a tool call or result keeps the
 * turn running (results marked `aborted` or `max_turns` end it); an assistant message that ends the turn makes the session
 * idle, one that failed makes it `error`. System entries and compaction
 * summaries change nothing. The same prompts start turns as
 * `splitUnanswered` counts.
 *
 * @example
 * ```ts
 * import { nextState } from "./session_state.ts";
 * const prompt = { role: "user" as const, content: [], timestamp: "2026-01-01T00:00:00.000Z" };
 * console.assert(nextState(undefined, prompt, 3)?.status === "running");
 * ```
 *
 * @param state The state before (`undefined`: idle).
 * @param message The message stored.
 * @param index Its index in the session.
 * @returns The state after.
 */
export function nextState(
  state: SessionState | undefined,
  message: Message,
  index: number,
): SessionState | undefined {
  if (message.role === "system") return state;
  if (message.content.some((block) => block.type === "compaction_summary")) return state;
  // An interrupted turn is a running one nobody holds: what follows folds in as for any running turn,
  // so every store and every handle agree whether it is read back from the start or folded on.
  const running = state?.status === "running" || state?.status === "interrupted"
    ? { ...state, status: "running" as const }
    : undefined;
  switch (message.role) {
    case "assistant":
      if (message.stopReason === "error") {
        return { status: "error", message: message.errorMessage ?? "the turn failed" };
      }
      if (message.stopReason !== "tool_use") return { status: "idle" };
      return turn(running, message, index, "tool_call");
    case "tool":
      // Results stored by a run interrupted while its tools ran, or stopped at its turn limit, end that run.
      if (message.stopReason !== undefined) return { status: "idle" };
      return turn(running, message, index, "tool_result");
    default:
      if (running?.last === "tool_result") return running;
      return turn(undefined, message, index, "prompt");
  }
}

function turn(
  running: Running | undefined,
  message: Message,
  index: number,
  last: Running["last"],
): Running {
  return running
    ? { ...running, last }
    : { status: "running", turnId: String(index), since: message.timestamp, last };
}
