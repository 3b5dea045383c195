import type { z } from "zod";
import type { Message } from "../message.ts";
import type { Usage } from "../usage.ts";
import { SessionCorruptError } from "./errors.ts";
import { recordSchemas } from "./record_schemas.ts";
import type { headerSchema } from "./schemas.ts";
import {
  checkNesting,
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

/**
 * A message line read only up to its tree fields (a lazy parse): its
 * message, wire and usage are left for {@linkcode readMessageLine}.
 */
export interface PendingEntry {
  /** 1-based line number. */
  line: number;
  /** The entry's id. */
  id: string;
  /** Its parent (`null`: a root). */
  parentId: string | null;
}

/** A line that could not be read. */
export interface LineProblem {
  /** 1-based line number. */
  line: number;
  /** What is wrong. */
  reason: string;
}

/**
 * A session file, read line by line. Its message entries are decoded
 * (`MessageEntry`) unless the parse was lazy.
 */
export interface ParsedSession<Entry = MessageEntry> {
  /** The header, or `null` when line 1 is missing or unreadable. */
  header: SessionHeader | null;
  /** Message entries in order. */
  messages: Entry[];
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
  /** Byte ranges `[start, end)` (newline excluded) of the message lines, as `messages`. */
  messageLines: [number, number][];
  /** Lines before `validEnd` (counting those before the bytes read). */
  lineCount: number;
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
  checkNesting(entry.message);
  const message = withUsage(entry.message, entry.usage);
  // The usage is the message's own almost always: written once, a load parses it once.
  if (entry.usage && JSON.stringify(entry.usage) !== JSON.stringify(message.usage)) {
    record.usage = entry.usage;
  }
  record.message = message;
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
   * Read message lines in the writer's own layout only up to their tree
   * fields ({@linkcode PendingEntry}): a load decodes just the entries on
   * its path, JSON.parse being most of a load's time. The last line is
   * always read whole, as it decides whether the file ends torn.
   */
  lazy?: boolean;
  /**
   * The bytes are what follows this many lines of a file (its header among
   * them): line numbers go on from there. Default 0, a whole file.
   */
  after?: number;
}

/**
 * Reads a session file. Never throws for damaged lines: it reports them, so
 * `load` can fail closed, `repair` can drop them and `list` can summarise
 * what is readable. A newer format version does throw.
 *
 * @param bytes The whole file.
 * @param path The file, for errors.
 * @param options What to read now.
 * @returns What was read.
 */
export function parseSession(bytes: Uint8Array, path: string): ParsedSession;
export function parseSession(
  bytes: Uint8Array,
  path: string,
  options: ParseOptions,
): ParsedSession<MessageEntry | PendingEntry>;
export function parseSession(
  bytes: Uint8Array,
  path: string,
  options: ParseOptions = {},
): ParsedSession<MessageEntry | PendingEntry> {
  const parsed: ParsedSession<MessageEntry | PendingEntry> = {
    header: null,
    messages: [],
    name: undefined,
    labels: new Map(),
    problems: [],
    torn: null,
    goodLines: [],
    messageLines: [],
    validEnd: bytes.length,
    lineCount: options.after ?? 0,
  };
  const lines = new LineTexts(bytes);
  let headerSlotUsed = (options.after ?? 0) > 0;
  let start = 0;
  for (let line = parsed.lineCount + 1; start < bytes.length; line++) {
    const newline = lines.newlineFrom(start);
    if (newline === -1) {
      parsed.torn = { line, reason: "last line has no newline (incomplete write)" };
      parsed.validEnd = start;
      break;
    }
    const end = newline + 1;
    const text = lines.next(start, newline);
    const pending = options.lazy && end !== bytes.length ? pendingEntry(text, line) : null;
    const messages = parsed.messages.length;
    const result = pending ? "good" : readLine(parsed, text, line, !headerSlotUsed, path);
    if (pending) parsed.messages.push(pending);
    if (parsed.messages.length > messages) parsed.messageLines.push([start, newline]);
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
    if (parsed.torn === null) parsed.lineCount = line;
    start = end;
  }
  return parsed;
}

/** How every message line the store writes starts (messageLine's key order). */
const MESSAGE_START = '{"type":"message","timestamp":"';

/**
 * The tree fields of a line in the writer's own layout, read without
 * parsing the rest; `null` for any other line (a header, a name or label,
 * an older or foreign layout, an escape inside the fields), which is then
 * read whole.
 */
function pendingEntry(text: string | null, line: number): PendingEntry | null {
  if (text === null || !text.startsWith(MESSAGE_START)) return null;
  const idAt = text.indexOf('"', MESSAGE_START.length) + ID_KEY.length;
  if (idAt === ID_KEY.length - 1 || !text.startsWith(ID_KEY, idAt - ID_KEY.length)) return null;
  const id = quoted(text, idAt);
  if (!id) return null;
  const parentAt = idAt + id.length + PARENT_KEY.length;
  if (!text.startsWith(PARENT_KEY, idAt + id.length)) return null;
  if (text.startsWith("null,", parentAt)) return { line, id, parentId: null };
  if (text.charCodeAt(parentAt) !== QUOTE) return null;
  const parentId = quoted(text, parentAt + 1);
  if (parentId === null || text.charCodeAt(parentAt + parentId.length + 2) !== COMMA) return null;
  return { line, id, parentId };
}

const ID_KEY = '","id":"';
const PARENT_KEY = '","parentId":';
const QUOTE = 0x22;
const COMMA = 0x2c;

/** The string from `start` to the next quote, or `null` when it holds an escape or never ends. */
function quoted(text: string, start: number): string | null {
  const end = text.indexOf('"', start);
  if (end === -1) return null;
  const value = text.slice(start, end);
  return value.includes("\\") ? null : value;
}

/**
 * The text of some lines of a file, by byte range (newline excluded), in
 * file order: lines that follow one another are decoded in one call (a call
 * per line costs more than the decoding), each `null` when it is not UTF-8.
 *
 * @example
 * ```ts
 * import { lineTexts } from "./jsonl_format.ts";
 * const bytes = new TextEncoder().encode("a\nbb\nc\n");
 * console.assert(lineTexts(bytes, [[0, 1], [2, 4]]).join() === "a,bb");
 * ```
 *
 * @param bytes The file.
 * @param ranges The lines' `[start, end)`, in file order.
 * @returns Their texts.
 */
export function lineTexts(
  bytes: Uint8Array,
  ranges: readonly [number, number][],
): (string | null)[] {
  const texts: (string | null)[] = [];
  for (let first = 0; first < ranges.length;) {
    let last = first;
    while (last + 1 < ranges.length && ranges[last + 1]![0] === ranges[last]![1] + 1) last++;
    const run = bytes.subarray(ranges[first]![0], ranges[last]![1]);
    const text = lossy.decode(run);
    if (text.includes("\uFFFD")) {
      for (let at = first; at <= last; at++) {
        texts.push(strictOrNull(bytes.subarray(ranges[at]![0], ranges[at]![1])));
      }
    } else {
      // A byte order mark opening a line is dropped, as a decode of that line alone drops it.
      for (const line of text.split("\n")) {
        texts.push(line.startsWith("\uFEFF") ? line.slice(1) : line);
      }
    }
    first = last + 1;
  }
  return texts;
}

/**
 * Decodes one message line in full and checks it against the schemas: a
 * line an index (or a lazy parse) found, which must still hold the id
 * read then. The record schemas must be loaded first.
 *
 * @example
 * ```ts
 * import { readMessageLine } from "./jsonl_format.ts";
 * import { loadRecordSchemas } from "./record_schemas.ts";
 * await loadRecordSchemas();
 * const line = '{"type":"message","timestamp":"t","id":"a","parentId":null,' +
 *   '"message":{"role":"user","content":[],"timestamp":"t"}}';
 * const entry = readMessageLine(line, 2, "a");
 * console.assert(entry.message.role === "user");
 * ```
 *
 * @param text The line (`null`: it is not UTF-8).
 * @param line Its 1-based number.
 * @param id The id read from it before (a position for a line that names none).
 * @param check Whether to check it against the schemas (`false`: it was, and is unchanged since).
 * @returns Its entry.
 * @throws {Error} Naming what is wrong: invalid UTF-8 or JSON, another id, or the first bad field as `what.field: problem`.
 */
export function readMessageLine(
  text: string | null,
  line: number,
  id: string,
  check = true,
): MessageEntry {
  if (text === null) throw new Error("invalid UTF-8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error("invalid JSON");
  }
  const entry = messageEntry(entryRecord(value), line);
  // JSON.parse keeps a key's last value: an id given twice disagrees with the one read first.
  if (entry.id !== undefined && entry.id !== id) {
    throw new Error(
      `id: ${JSON.stringify(entry.id)}, where the line starts with ${JSON.stringify(id)}`,
    );
  }
  if (check) checkEntry(entry);
  return entry;
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
  /** Every character is one byte: byte offsets are text offsets. */
  #ascii: boolean;
  #at = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    // The lossy decoder is several times faster; it turns bad bytes into
    // U+FFFD, which text may also hold, so only then does the strict one look.
    const text = lossy.decode(bytes);
    this.#text = text.includes("\uFFFD") ? strictOrNull(bytes) : text;
    this.#ascii = this.#text !== null && text.length === bytes.length;
  }

  /** The byte offset of the first newline from `start`, or -1 (a string search is many times faster). */
  newlineFrom(start: number): number {
    return this.#ascii ? this.#text!.indexOf("\n", start) : this.#bytes.indexOf(NEWLINE, start);
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
  parsed: ParsedSession<MessageEntry | PendingEntry>,
  text: string | null,
  line: number,
  isHeader: boolean,
  path: string,
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
      readEntry(parsed, value, line);
    }
    return "good";
  } catch (error) {
    if (error instanceof SessionCorruptError) throw error;
    return { reason: (error as Error).message, syntax: false };
  }
}

function readEntry(
  parsed: ParsedSession<MessageEntry | PendingEntry>,
  value: unknown,
  line: number,
): void {
  const record = entryRecord(value);
  if (record.type === "name") {
    if (typeof record.name !== "string") throw new Error("name: expected a string");
    parsed.name = record.name;
    return;
  }
  if (record.type === "label") {
    if (typeof record.entryId !== "string") throw new Error("entryId: expected a string");
    if (typeof record.label !== "string") throw new Error("label: expected a string");
    if (record.label === "") parsed.labels.delete(record.entryId);
    else parsed.labels.set(record.entryId, record.label);
    return;
  }
  const entry = messageEntry(record, line);
  checkEntry(entry);
  parsed.messages.push(entry);
}

/** A line's JSON as an entry: an object with a timestamp. */
function entryRecord(value: unknown): Record<string, unknown> & { timestamp: string } {
  if (!isRecord(value)) throw new Error("not a JSON object");
  if (typeof value.timestamp !== "string") throw new Error("timestamp: expected a string");
  return value as Record<string, unknown> & { timestamp: string };
}

/** A message line's entry, its tree fields checked (its message, wire and usage by checkEntry). */
function messageEntry(
  value: Record<string, unknown> & { timestamp: string },
  line: number,
): MessageEntry {
  if (value.type !== "message") throw new Error(`unknown entry type ${JSON.stringify(value.type)}`);
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
  return entry;
}

/** Checks a message entry's message, wire and usage against their schemas. */
function checkEntry(entry: MessageEntry): void {
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
  return decode(recordSchemas().headerSchema, value, "header");
}

function isEntry(value: unknown): boolean {
  return isRecord(value) && ["message", "name", "label"].includes(String(value.type));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
