import { z } from "zod";
import type { Message } from "../message.ts";
import type { Usage } from "../usage.ts";
import { SessionCorruptError } from "./errors.ts";
import {
  decode,
  decodeMessage,
  decodeUsage,
  decodeWire,
  stringifyWellFormed,
  withUsage,
} from "./serialize.ts";
import type { PersistentMessage, WireIdentity } from "./types.ts";

/**
 * The JSONL format version this code writes; it reads this one and older.
 * Version 2 adds the session tree (`id` and `parentId` on message lines,
 * `parentSessionId` in the header); a version 1 file reads as one chain
 * and its header is rewritten as version 2 on its first write.
 */
export const JSONL_FORMAT_VERSION = 2;

const headerSchema = z.looseObject({
  type: z.literal("session"),
  version: z.number(),
  id: z.string(),
  created: z.string(),
  cwd: z.string().exactOptional(),
  metadata: z.string().exactOptional(),
  name: z.string().exactOptional(),
  ownerId: z.string().exactOptional(),
  parentSessionId: z.string().exactOptional(),
});

/** The first line of a session file. */
export type SessionHeader = z.output<typeof headerSchema>;

/** A message line, decoded. */
export interface MessageEntry {
  /** 1-based line number. */
  line: number;
  /** When the entry was written. */
  timestamp: string;
  /** The entry's id (absent in version 1 lines: its position). */
  id?: string;
  /** Its parent (`null`: a root; absent: the entry before it). */
  parentId?: string | null;
  message: Message;
  wire?: WireIdentity;
  usage?: Usage;
}

/** A line that could not be read. */
export interface LineProblem {
  /** 1-based line number. */
  line: number;
  /** What is wrong. */
  reason: string;
}

/** A session file, read line by line. */
export interface ParsedSession {
  /** The header, or `null` when line 1 is missing or unreadable. */
  header: SessionHeader | null;
  /** Message entries in order. */
  messages: MessageEntry[];
  /** The name from the header or the last `name` entry. */
  name: string | undefined;
  /** Entry labels, from the last `label` line of each entry (removed ones left out). */
  labels: Map<string, string>;
  /** Unreadable lines other than a torn last line. */
  problems: LineProblem[];
  /** The incomplete last line, ignored (a crash mid-write). */
  torn: LineProblem | null;
  /** Byte ranges `[start, end)` (newline included) of every readable line, header first. */
  goodLines: [number, number][];
  /** Where the torn last line starts (or the file's length): where the next append goes. */
  validEnd: number;
}

/**
 * Encodes the header line.
 *
 * @param header The header.
 * @returns One line, newline-terminated.
 */
export function headerLine(header: SessionHeader): string {
  return `${stringifyWellFormed(header)}\n`;
}

/**
 * Encodes a message line.
 *
 * @param entry What the agent appended.
 * @param timestamp When it is written.
 * @returns One line, newline-terminated.
 */
export function messageLine(entry: PersistentMessage, timestamp: string): string {
  const record: Record<string, unknown> = { type: "message", timestamp };
  if (entry.id !== undefined) record.id = entry.id;
  if (entry.parentId !== undefined) record.parentId = entry.parentId;
  if (entry.wire) record.wire = entry.wire;
  if (entry.usage) record.usage = entry.usage;
  record.message = withUsage(entry.message, entry.usage);
  return `${stringifyWellFormed(record)}\n`;
}

/**
 * Encodes a label line (`label` `""`: the entry's label is removed).
 *
 * @param entryId The entry labelled.
 * @param label The label.
 * @param timestamp When it is written.
 * @returns One line, newline-terminated.
 */
export function labelLine(entryId: string, label: string, timestamp: string): string {
  return `${stringifyWellFormed({ type: "label", timestamp, entryId, label })}
`;
}

/**
 * Encodes a rename line.
 *
 * @param name The new name.
 * @param timestamp When it is written.
 * @returns One line, newline-terminated.
 */
export function nameLine(name: string, timestamp: string): string {
  return `${stringifyWellFormed({ type: "name", timestamp, name })}\n`;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const lossy = new TextDecoder("utf-8");

function strictOrNull(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}
const NEWLINE = 0x0a;

/** How {@linkcode parseSession} reads. */
export interface ParseOptions {
  /**
   * Check each message line's JSON and tree fields only, leaving its
   * message, wire and usage to {@linkcode checkEntry}: a load checks the
   * entries on its path, not every branch (most of a load's time).
   */
  deferChecks?: boolean;
}

/**
 * Reads a session file. Never throws for damaged lines: it reports them, so
 * `load` can fail closed, `repair` can drop them and `list` can summarise
 * what is readable. A newer format version does throw.
 *
 * @param bytes The whole file.
 * @param path The file, for errors.
 * @param options What to check now.
 * @returns What was read.
 */
export function parseSession(
  bytes: Uint8Array,
  path: string,
  options: ParseOptions = {},
): ParsedSession {
  const parsed: ParsedSession = {
    header: null,
    messages: [],
    name: undefined,
    labels: new Map(),
    problems: [],
    torn: null,
    goodLines: [],
    validEnd: bytes.length,
  };
  const lines = new LineTexts(bytes);
  const check = !options.deferChecks;
  let headerSlotUsed = false;
  let start = 0;
  for (let line = 1; start < bytes.length; line++) {
    const newline = bytes.indexOf(NEWLINE, start);
    if (newline === -1) {
      parsed.torn = { line, reason: "last line has no newline (incomplete write)" };
      parsed.validEnd = start;
      break;
    }
    const end = newline + 1;
    const result = readLine(parsed, lines.next(start, newline), line, !headerSlotUsed, path, check);
    if (result === "good") parsed.goodLines.push([start, end]);
    if (result !== "blank") headerSlotUsed = true;
    if (typeof result === "object") {
      if (result.syntax && end === bytes.length) {
        parsed.torn = { line, reason: `${result.reason} on the last line (incomplete write)` };
        parsed.validEnd = start;
      } else {
        parsed.problems.push({ line, reason: result.reason });
      }
    }
    start = end;
  }
  return parsed;
}

type LineResult = "good" | "blank" | { reason: string; syntax: boolean };

/**
 * The text of each line in turn. The whole file is decoded at once when it
 * is valid UTF-8 (a byte 0x0A is only ever a newline, so its lines are the
 * file's `\n`-separated pieces); else line by line, so the bad one is named.
 */
class LineTexts {
  #bytes: Uint8Array;
  #text: string | null;
  #at = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    // The lossy decoder is several times faster; it turns bad bytes into
    // U+FFFD, which text may also hold, so only then does the strict one look.
    const text = lossy.decode(bytes);
    this.#text = text.includes("\uFFFD") ? strictOrNull(bytes) : text;
  }

  /** The line at bytes `[start, newline)`: its text, or `null` when it is not UTF-8. */
  next(start: number, newline: number): string | null {
    if (this.#text === null) return strictOrNull(this.#bytes.subarray(start, newline));
    const from = this.#at;
    const end = this.#text.indexOf("\n", from);
    this.#at = end + 1;
    // Decoding a line alone drops a leading byte order mark (the file's decode dropped line 1's).
    return this.#text.slice(from > 0 && this.#text[from] === "\uFEFF" ? from + 1 : from, end);
  }
}

function readLine(
  parsed: ParsedSession,
  text: string | null,
  line: number,
  isHeader: boolean,
  path: string,
  check: boolean,
): LineResult {
  if (text === null) return { reason: "invalid UTF-8", syntax: true };
  if (text.trim() === "") return "blank";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reason: "invalid JSON", syntax: true };
  }
  try {
    // A file whose header line was lost starts with an entry: keep it as one.
    if (isHeader && !isEntry(value)) {
      parsed.header = readHeader(value, path);
      parsed.name = parsed.header.name;
    } else {
      readEntry(parsed, value, line, check);
    }
    return "good";
  } catch (error) {
    if (error instanceof SessionCorruptError) throw error;
    return { reason: (error as Error).message, syntax: false };
  }
}

function readEntry(parsed: ParsedSession, value: unknown, line: number, check: boolean): void {
  if (!isRecord(value)) throw new Error("not a JSON object");
  if (typeof value.timestamp !== "string") throw new Error("timestamp: expected a string");
  if (value.type === "name") {
    if (typeof value.name !== "string") throw new Error("name: expected a string");
    parsed.name = value.name;
    return;
  }
  if (value.type === "label") {
    if (typeof value.entryId !== "string") throw new Error("entryId: expected a string");
    if (typeof value.label !== "string") throw new Error("label: expected a string");
    if (value.label === "") parsed.labels.delete(value.entryId);
    else parsed.labels.set(value.entryId, value.label);
    return;
  }
  if (value.type !== "message") throw new Error(`unknown entry type ${JSON.stringify(value.type)}`);
  // Unchecked until checkEntry when deferred: the fields are the line's own values either way.
  const entry: MessageEntry = {
    line,
    timestamp: value.timestamp,
    message: value.message as Message,
  };
  if (value.id !== undefined) {
    if (typeof value.id !== "string" || value.id === "") throw new Error("id: expected a string");
    entry.id = value.id;
  }
  if (value.parentId !== undefined) {
    if (value.parentId !== null && typeof value.parentId !== "string") {
      throw new Error("parentId: expected a string or null");
    }
    entry.parentId = value.parentId;
  }
  if (value.wire !== undefined) entry.wire = value.wire as WireIdentity;
  if (value.usage !== undefined) entry.usage = value.usage as Usage;
  if (check) checkEntry(entry);
  parsed.messages.push(entry);
}

/**
 * Checks a message entry's message, wire and usage against their schemas
 * (what {@linkcode parseSession} leaves undone when its checks are deferred).
 *
 * @example
 * ```ts
 * import { checkEntry, type MessageEntry } from "./jsonl_format.ts";
 * const entry = { line: 2, timestamp: "", message: { role: "user" } } as MessageEntry;
 * let reason = "";
 * try {
 *   checkEntry(entry);
 * } catch (error) {
 *   reason = (error as Error).message;
 * }
 * console.assert(reason.startsWith("message.content"));
 * ```
 *
 * @param entry The entry, as parsed.
 * @throws {Error} Naming the first field that is wrong, as `what.field: problem`.
 */
export function checkEntry(entry: MessageEntry): void {
  decodeMessage(entry.message);
  if (entry.wire !== undefined) decodeWire(entry.wire);
  if (entry.usage !== undefined) decodeUsage(entry.usage);
}

function readHeader(value: unknown, path: string): SessionHeader {
  if (!isRecord(value) || value.type !== "session") {
    throw new Error("line 1 is not a session header");
  }
  // The version first: a newer file may have changed any other field.
  if (typeof value.version === "number" && value.version > JSONL_FORMAT_VERSION) {
    throw new SessionCorruptError(
      path,
      1,
      `written in session format version ${value.version}; this panto reads version ${JSONL_FORMAT_VERSION}`,
      "upgrade panto to read it",
    );
  }
  return decode(headerSchema, value, "header");
}

function isEntry(value: unknown): boolean {
  return isRecord(value) && ["message", "name", "label"].includes(String(value.type));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
