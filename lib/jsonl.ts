/**
 * `@panto/lib/jsonl`: {@linkcode FileSystemJSONLStore}, sessions as one
 * JSONL file each in a directory (the panto CLI's default store). It uses
 * Deno's file APIs, so this entry point runs on Deno only.
 *
 * @example Keep a session in a directory
 * ```ts
 * import { Conversation } from "@panto/lib";
 * import { FileSystemJSONLStore } from "@panto/lib/jsonl";
 *
 * const dir = await Deno.makeTempDir();
 * const store = new FileSystemJSONLStore({ dir });
 * const session = store.create();
 * const conversation: Conversation = await session.load();
 * console.assert(conversation.messages.length === 0);
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */
export {
  FileSystemJSONLStore,
  type FileSystemJSONLStoreOptions,
  type RepairReport,
} from "./session/jsonl_store.ts";
