// What every importer builds: the foreign file's tree, rebuilt as panto
// entries. Foreign files hold entries panto has no message for (a model
// change, an extension's state): those are skipped, and an entry that
// continued one continues the nearest entry kept above it instead, so the
// tree keeps its shape.
import type { Message } from "../message.ts";
import { SessionImportError } from "./errors.ts";
import type { PersistentMessage, WireIdentity } from "./types.ts";

/** The formats {@linkcode ImportedSession} is read from. */
export type ImportFormat = "panto" | "pi" | "claude-code";

/**
 * A session read from a file, ready to be written into a store.
 *
 * @example
 * ```ts
 * import type { ImportedSession } from "@panto/lib/transfer";
 * const empty: ImportedSession = { format: "pi", entries: [], labels: [], skipped: {} };
 * console.assert(empty.entries.length === 0);
 * ```
 */
export interface ImportedSession {
  /** The format it was read in. */
  format: ImportFormat;
  /** Every entry, parents before children, each with its id and parent. */
  entries: PersistentMessage[];
  /** Entry labels, `[entryId, label]`. */
  labels: [string, string][];
  /** The session's name, when the file gives one. */
  name?: string;
  /** When the session was created, when the file says. */
  created?: string;
  /** The conversation's metadata (panto files only). */
  metadata?: string;
  /** Entries left out, counted by kind (`model_change`, `file-history-snapshot`, …). */
  skipped: Record<string, number>;
}

/** One line of a JSONL file: its parsed object and 1-based number. */
export interface JsonLine {
  /** The parsed object. */
  value: Record<string, unknown>;
  /** 1-based line number. */
  line: number;
}

/**
 * The objects of a JSONL file, blank lines left out.
 *
 * @example
 * ```ts
 * import { jsonLines } from "./import_tree.ts";
 * const lines = jsonLines('{"a":1}\n\n{"b":2}\n', "f.jsonl");
 * console.assert(lines[1]?.line === 3);
 * ```
 *
 * @param text The file's text.
 * @param path The file, for errors.
 * @returns Each line's object.
 * @throws {SessionImportError} For a line that is not a JSON object, naming it.
 */
export function jsonLines(text: string, path: string): JsonLine[] {
  const lines: JsonLine[] = [];
  text.split("\n").forEach((raw, index) => {
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new SessionImportError(path, index + 1, `invalid JSON (${(error as Error).message})`);
    }
    if (!isRecord(value)) throw new SessionImportError(path, index + 1, "not a JSON object");
    lines.push({ value, line: index + 1 });
  });
  return lines;
}

/**
 * Builds an {@linkcode ImportedSession}'s tree from foreign entries, which
 * name their own ids and parents (`undefined`: the entry before).
 *
 * @example
 * ```ts
 * import { ImportTree } from "./import_tree.ts";
 * const tree = new ImportTree("pi");
 * const message = { role: "user" as const, content: [], timestamp: "" };
 * tree.add("a", null, message);
 * tree.skip("b", "a", "model_change");
 * tree.add("c", "b", message);
 * console.assert(tree.session.entries[1]?.parentId === "a");
 * console.assert(tree.session.skipped.model_change === 1);
 * ```
 */
export class ImportTree {
  /** The session built so far. */
  readonly session: ImportedSession;
  /** Each foreign id to the entry kept for it: itself, its kept ancestor (`null`: none) or the one it merged into. */
  #kept = new Map<string, string | null>();
  #withChildren = new Set<string | null>();
  #byId = new Map<string, PersistentMessage>();
  #previous: string | null = null;

  /**
   * Starts an empty tree.
   *
   * @param format The format read.
   */
  constructor(format: ImportFormat) {
    this.session = { format, entries: [], labels: [], skipped: {} };
  }

  /**
   * Adds an entry.
   *
   * @param id Its foreign id.
   * @param parentId Its foreign parent (`null`: a root; `undefined`: the entry before).
   * @param message The message.
   * @param wire Who produced it.
   */
  add(
    id: string,
    parentId: string | null | undefined,
    message: Message,
    wire?: WireIdentity,
  ): void {
    const parent = this.#resolve(parentId);
    const entry: PersistentMessage = {
      message,
      conversation: [],
      toolsAvailable: [],
      id,
      parentId: parent,
    };
    if (message.usage) entry.usage = message.usage;
    if (wire) entry.wire = wire;
    this.session.entries.push(entry);
    this.#byId.set(id, entry);
    this.#kept.set(id, id);
    this.#withChildren.add(parent);
    this.#previous = id;
  }

  /**
   * The kept entry a foreign entry may be merged into (`mergeable` says
   * whether), when it is its parent's only child so far: a foreign format
   * may split one message over several entries.
   *
   * @param parentId The foreign entry's parent.
   * @param mergeable Whether the parent's message takes it.
   * @returns The parent's message, or `undefined`.
   */
  mergeTarget(
    parentId: string | null | undefined,
    mergeable: (message: Message) => boolean,
  ): Message | undefined {
    const parent = this.#resolve(parentId);
    if (parent === null || this.#withChildren.has(parent)) return undefined;
    const entry = this.#byId.get(parent);
    return entry && mergeable(entry.message) ? entry.message : undefined;
  }

  /**
   * Records that a foreign entry was merged into its parent's message
   * ({@linkcode mergeTarget}): its children continue that entry.
   *
   * @param id The foreign entry's id.
   * @param parentId Its foreign parent.
   */
  merged(id: string, parentId: string | null | undefined): void {
    const parent = this.#resolve(parentId);
    this.#kept.set(id, parent);
    this.#previous = parent;
  }

  /**
   * Leaves a foreign entry out, counted under `kind`: its children continue its parent.
   *
   * @param id Its foreign id (`undefined`: it has none, so nothing continues it).
   * @param parentId Its foreign parent.
   * @param kind What it was (`undefined`: what it held was kept otherwise, as a name or a label).
   */
  skip(id: string | undefined, parentId: string | null | undefined, kind?: string): void {
    if (kind !== undefined) this.session.skipped[kind] = (this.session.skipped[kind] ?? 0) + 1;
    if (id !== undefined) this.#kept.set(id, this.#resolve(parentId));
  }

  /**
   * The messages on the path from a foreign entry down to another (both
   * included), oldest first; none when the first is not above the second.
   *
   * @param fromId The foreign entry the path starts at.
   * @param toId The foreign entry it ends at (`undefined`: the entry before).
   * @returns The messages.
   */
  messagesBetween(fromId: string, toId: string | null | undefined): Message[] {
    const messages: Message[] = [];
    const first = this.#kept.get(fromId);
    for (let at = this.#resolve(toId); at !== null;) {
      const entry = this.#byId.get(at);
      if (!entry) break;
      messages.unshift(entry.message);
      if (at === first) return messages;
      at = entry.parentId ?? null;
    }
    return [];
  }

  /**
   * Makes a foreign entry's children continue another kept entry (the last
   * of the copies a compaction keeps after itself).
   *
   * @param id The foreign entry.
   * @param keptId The kept entry its children continue.
   */
  continueAt(id: string, keptId: string): void {
    this.#kept.set(id, keptId);
    this.#previous = keptId;
  }

  /**
   * Labels the entry kept for a foreign entry.
   *
   * @param id The foreign entry labelled.
   * @param label The label (`""` or `undefined`: removed).
   */
  label(id: string, label: string | undefined): void {
    const kept = this.#kept.get(id);
    if (kept === undefined || kept === null) return;
    this.session.labels = this.session.labels.filter(([entryId]) => entryId !== kept);
    if (label) this.session.labels.push([kept, label]);
  }

  /** The kept entry for a foreign parent: one never seen (cut from the file) reads as the entry before. */
  #resolve(parentId: string | null | undefined): string | null {
    if (parentId === null) return null;
    if (parentId === undefined) return this.#previous;
    const kept = this.#kept.get(parentId);
    return kept === undefined ? this.#previous : kept;
  }
}

/**
 * Whether a value is a plain JSON object.
 *
 * @example
 * ```ts
 * import { isRecord } from "./import_tree.ts";
 * console.assert(isRecord({}) && !isRecord([]) && !isRecord(null));
 * ```
 *
 * @param value Any value.
 * @returns Whether it is an object that is not an array.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
