/**
 * The encrypted reasoning item of the OpenAI Responses API, carried across
 * turns in a thinking block's `signature`.
 *
 * Requests go out with `store: false`, so the server keeps nothing: a later
 * request can only continue the model's reasoning if it sends the reasoning
 * item back with its `encrypted_content`. The item is kept in the signature
 * under a prefix so that a signature from another API (Anthropic's are
 * base64) is never mistaken for one.
 *
 * @module
 */

/** What identifies a reasoning item when it is sent back. */
export interface ReasoningItemRef {
  /** The item's id (`rs_…`). */
  id: string;
  /** The opaque reasoning the server encrypted for us. */
  encryptedContent: string;
}

const PREFIX = "openai-responses:";

/**
 * The `signature` of a thinking block that stands for a reasoning item.
 *
 * @example
 * ```ts
 * import { decodeReasoningSignature, encodeReasoningSignature } from "./openai_responses_reasoning.ts";
 * const signature = encodeReasoningSignature({ id: "rs_1", encryptedContent: "gAAA" });
 * console.assert(decodeReasoningSignature(signature)?.id === "rs_1");
 * ```
 *
 * @param item The item's id and encrypted content.
 * @returns `openai-responses:` followed by the item as JSON.
 */
export function encodeReasoningSignature(item: ReasoningItemRef): string {
  return PREFIX + JSON.stringify({ id: item.id, encrypted_content: item.encryptedContent });
}

/**
 * The reasoning item a thinking block's `signature` stands for, or
 * `undefined` when the signature was not made by
 * {@linkcode encodeReasoningSignature} (another API's, or none).
 *
 * @example
 * ```ts
 * import { decodeReasoningSignature } from "./openai_responses_reasoning.ts";
 * console.assert(decodeReasoningSignature("EqQBCkYIBxgCKkA") === undefined);
 * ```
 *
 * @param signature A thinking block's signature.
 * @returns The item's id and encrypted content, or `undefined`.
 */
export function decodeReasoningSignature(
  signature: string | undefined,
): ReasoningItemRef | undefined {
  if (signature === undefined || !signature.startsWith(PREFIX)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(signature.slice(PREFIX.length));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { id, encrypted_content: encryptedContent } = value as Record<string, unknown>;
  if (typeof id !== "string" || typeof encryptedContent !== "string") return undefined;
  return { id, encryptedContent };
}
