/**
 * panto: a Deno-first coding agent. This root module re-exports the public
 * API of `@panto/lib`.
 *
 * @example
 * ```ts
 * import { Conversation } from "./mod.ts";
 * console.assert(new Conversation().messages.length === 0);
 * ```
 *
 * @module
 */
export * from "@panto/lib";
