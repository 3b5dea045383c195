import { type Message, messageText, runContinuesAfter } from "@panto/lib";
import { type TypedPrompt, typedPrompt } from "./typed_prompt.ts";

/**
 * An unanswered prompt as the user wrote it, if any.
 *
 * @param message The session's unanswered user message, if it has one.
 * @returns Its text and pasted images.
 */
export function danglingPrompt(message: Message | undefined): TypedPrompt | undefined {
  return message ? typedPrompt(message) : undefined;
}

/**
 * The prompt the conversation ends with when it got no answer: nothing
 * after it, or only an aborted or failed answer without text. Requests
 * leave such a prompt out from then on (lib's `prepareContext`), so it is
 * offered to the user instead.
 *
 * @param messages The conversation after a run that did not end `done`.
 * @returns The prompt, or `undefined` when the last prompt was answered.
 */
export function unansweredPrompt(messages: readonly Message[]): Message | undefined {
  const context = messages.filter((message) => message.role !== "system");
  let at = context.length - 1;
  const last = context[at];
  if (last?.role === "assistant") {
    const interrupted = last.stopReason === "aborted" || last.stopReason === "error";
    if (!interrupted || messageText(last).trim() !== "") return undefined;
    at--;
  }
  const prompt = context[at];
  // A user message after tool results steered the run: the run's prompt was answered.
  if (prompt?.role !== "user" || runContinuesAfter(context[at - 1])) return undefined;
  return prompt.content.some((block) => block.type === "compaction_summary") ? undefined : prompt;
}
