/**
 * Ids for Gemini function calls. Gemini 3 names its calls (`"id":
 * "g1bmv6il"`); older models send none, and panto needs one to pair each
 * call with its result. Minted ids are derived from the response id, so a
 * replayed stream gets the same ids, and carry a prefix so that requests
 * send Gemini only the ids it made.
 *
 * @module
 */

const MINTED_PREFIX = "gcall_";

/**
 * An id for the `index`-th call of a response that named none.
 *
 * @param responseId The response's `responseId` ("" when it had none: the id is then random).
 * @param index The call's position among the message's calls.
 * @returns An id matching `[A-Za-z0-9_-]{1,40}`, which every provider accepts.
 *
 * @example
 * ```ts
 * import { isMintedCallId, mintCallId } from "./google_call_ids.ts";
 * const id = mintCallId("bH6LaZW8Fp_3nsEPqtaSwQ4", 0);
 * console.assert(id === "gcall_bH6LaZW8Fp_3nsEPqtaSwQ4_0" && isMintedCallId(id));
 * ```
 */
export function mintCallId(responseId: string, index: number): string {
  const stem = responseId.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 24) ||
    crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  return `${MINTED_PREFIX}${stem}_${index}`;
}

/**
 * Whether panto minted this id (Gemini never saw it, so it is not sent).
 *
 * @param id A call id.
 * @returns True for an id from {@linkcode mintCallId}.
 *
 * @example
 * ```ts
 * import { isMintedCallId } from "./google_call_ids.ts";
 * console.assert(!isMintedCallId("g1bmv6il"));
 * ```
 */
export function isMintedCallId(id: string): boolean {
  return id.startsWith(MINTED_PREFIX);
}
