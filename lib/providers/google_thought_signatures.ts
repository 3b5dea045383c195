/**
 * Where Gemini's thought signatures live in panto's content blocks.
 *
 * Gemini returns an opaque `thoughtSignature` on parts of its answer: on
 * thought parts, on the first function call of a step, on text (often an
 * empty text part at the end). The next request must send each one back on
 * the same kind of part, and Gemini 3 rejects a replayed function call
 * without its signature. Only `thinking` blocks have a `signature` field,
 * so, in messages from the `google-generative-ai` API:
 *
 * - a `thinking` block with text holds its thought parts' signature;
 * - a **signature carrier** (a `thinking` block with empty text and a
 *   signature) holds the signature of the text or function-call part right
 *   before it in the message; with no such part before it, it stands for an
 *   empty signed text part.
 *
 * Carriers are ordinary thinking blocks: stored, shown (as empty thinking)
 * and handed to another model like any other (`prepareContext` drops
 * empty thinking of other models, so a signature never leaves its model).
 *
 * @module
 */
import type { ContentBlock, ThinkingBlock } from "../content.ts";

/**
 * The block that carries the signature of the part before it.
 *
 * @param signature The part's `thoughtSignature`.
 * @returns A thinking block with empty text.
 *
 * @example
 * ```ts
 * import { signatureCarrier } from "./google_thought_signatures.ts";
 * console.assert(signatureCarrier("c2ln").thinking === "");
 * ```
 */
export function signatureCarrier(signature: string): ThinkingBlock {
  return { type: "thinking", thinking: "", signature };
}

/**
 * The signature a block carries for the part before it, if it is a carrier.
 *
 * @param block Any block of a Gemini message.
 * @returns The signature, or `undefined`.
 *
 * @example
 * ```ts
 * import { carriedSignature } from "./google_thought_signatures.ts";
 * console.assert(carriedSignature({ type: "thinking", thinking: "", signature: "c2ln" }) === "c2ln");
 * console.assert(carriedSignature({ type: "thinking", thinking: "hm", signature: "c2ln" }) === undefined);
 * ```
 */
export function carriedSignature(block: ContentBlock): string | undefined {
  return block.type === "thinking" && block.thinking === "" && block.signature
    ? block.signature
    : undefined;
}
