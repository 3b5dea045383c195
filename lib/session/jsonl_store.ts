import { join } from "node:path";
import { concatBytes } from "../concat_bytes.ts";
import { errorMessage } from "../error_message.ts";
import { Conversation } from "../conversation.ts";
import {
  AmbiguousSessionIdError,
  SessionCorruptError,
  SessionInUseError,
  SessionNotFoundError,
  SessionStoreError,
} from "./errors.ts";
import { FileLock } from "./file_lock.ts";
import { indexDir, readListIndex, writeListIndex } from "./jsonl_list_index.ts";
import { type MigrationFence, parseFence, refuseIfFenced } from "./migration_fence.ts";
import { checkSessionId, isSessionId } from "./ids.ts";
import { nullIfMissing } from "./null_if_missing.ts";
import { openInPlace } from "./open_in_place.ts";
import {
  headerLine,
  JSONL_FORMAT_VERSION,
  labelLine,
  lineTexts,
  messageLine,
  nameLine,
  type ParsedSession,
  parseSession,
  readMessageLine,
  type SessionHeader,
} from "./jsonl_format.ts";
import { lineNumbersOf, reassignDuplicateIds } from "./jsonl_repair.ts";
import { exportMarkdown } from "./markdown_export.ts";
import { excerpt, foldSummary, searchableText, summarizeBatch } from "./serialize.ts";
import { loadRecordSchemas, recordSchemas } from "./record_schemas.ts";
import { Session } from "./session.ts";
import { type StoredTree, type TreeLink, unknownEntry } from "./tree.ts";
import { forkSession, readLinks, readTree, replacementBranch } from "./tree_store.ts";
import {
  extendTreeIndex,
  type FileState,
  indexedPath,
  readTreeIndex,
  removeTreeIndex,
  type TreeIndex,
  writeTreeIndex,
} from "./jsonl_tree_index.ts";
import { OwnerView } from "./owner_view.ts";
import {
  addPending,
  checkExpectedCount,
  emptySessionInfo,
  type PendingSession,
  saveFailure,
} from "./store_common.ts";
import type {
  AppendOptions,
  CreateSessionOptions,
  ListSessionsOptions,
  PersistentMessage,
  ResolveOptions,
  SearchHit,
  SearchOptions,
  SessionInfo,
  SessionStore,
} from "./types.ts";

/** Options for {@linkcode FileSystemJSONLStore}. */
export interface FileSystemJSONLStoreOptions {
  /** The sessions directory (created 0700 when missing). */
  dir: string;
}

/** What {@linkcode FileSystemJSONLStore.repair} did. */
export interface RepairReport {
  /** The session file. */
  path: string;
  /** Where the original was copied before rewriting, or `null` when nothing needed repair. */
  backupPath: string | null;
  /** Lines kept (header included). */
  kept: number;
  /** Lines dropped, with why. */
  dropped: { line: number; reason: string }[];
  /**
   * Message lines whose entry id an earlier line has (1-based `line`, the
   * `id` it had): given `newId`, which the lines after it name.
   */
  reassigned: { line: number; id: string; newId: string }[];
  /** Whether a minimal header was written because the file's own was missing or damaged. */
  headerRebuilt: boolean;
}

/** The sidecar `<id>.meta.json`: the list entry of a session file of a given size and mtime. */
interface Summary {
  info: SessionInfo;
  size: number;
  mtimeMs: number;
}

/** An open session file this store writes, with its lock held. */
interface Writer {
  lock: FileLock;
  file: Deno.FsFile | null;
  /** Bytes known good: the next append goes here. */
  size: number;
  summary: SessionInfo;
}

/** How {@linkcode FileSystemJSONLStore} opens a session for a write other than a turn's. */
interface WriterOptions {
  /** Open the file as it is: no torn line truncated, nothing checked (repair, delete). */
  asIs?: boolean;
  /** Whether the write may go on in a fenced store (default: it may not). */
  pastFence?: () => Promise<boolean>;
}

/**
 * Version 2 adds the state and owner, 3 the first prompt: older sidecars
 * are rebuilt from their files once.
 */
const SIDECAR_VERSION = 3;
const LIST_CONCURRENCY = 32;
/** How much a load reads past a session's tree index before it rewrites the index. */
const INDEX_REWRITE_BYTES = 256 * 1024;
/** How often `drainWriters` looks at the locks still held. */
const DRAIN_POLL_MS = 50;
const AMBIGUITY_SHOWN = 5;
/** What `#replaceFile` adds to a session file's name while it writes the new one. */
const TEMP_EXTENSION = ".jsonl.tmp";
const encoder = new TextEncoder();

/**
 * The default store: one `<uuidv7>.jsonl` file per session in a directory.
 * Every acknowledged append is fsynced; a writer holds an exclusive lock on
 * the session while its turn runs, and a writer with a stale view is
 * refused (`SessionChangedError`); a torn last line
 * is ignored and truncated on the next append; damage elsewhere fails closed
 * (see {@linkcode FileSystemJSONLStore.repair}). The format is documented in
 * `docs/sessions.md`.
 *
 * @example Persist and resume
 * ```ts
 * import { FileSystemJSONLStore } from "@panto/lib/jsonl";
 * const dir = await Deno.makeTempDir();
 * const store = new FileSystemJSONLStore({ dir });
 * const session = store.create({ cwd: dir });
 * const message = (role: "user" | "assistant", text: string) => ({
 *   message: { role, content: [{ type: "text" as const, text }], timestamp: new Date().toISOString() },
 *   conversation: [],
 *   toolsAvailable: [],
 * });
 * await session.append([message("user", "hi"), message("assistant", "hello")]);
 * const resumed = await store.latest();
 * console.assert((await resumed!.load()).messages.length === 2);
 * await store.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class FileSystemJSONLStore implements SessionStore {
  /** The sessions directory. */
  readonly dir: string;
  #pending = new Map<string, PendingSession>();
  #writers = new Map<string, Writer>();
  #queues = new Map<string, Promise<unknown>>();
  #closed = false;

  /**
   * Opens a sessions directory (nothing is touched until the first write).
   *
   * @param options The directory.
   * @throws {SessionStoreError} When the directory is `""`.
   */
  constructor(options: FileSystemJSONLStoreOptions) {
    if (options.dir === "") {
      throw new SessionStoreError("The sessions directory path is empty: name a directory");
    }
    this.dir = options.dir;
  }

  /**
   * Checks that sessions can be saved, before anything depends on it: the
   * directory exists or can be created, and a file can be created in it
   * (and is removed again), and no migration fenced it.
   *
   * @throws {SessionStoreError} Naming the directory and the cause.
   * @throws {SessionStoreMigratedError} When its sessions were moved to another store.
   */
  async checkWritable(): Promise<void> {
    this.#assertOpen();
    try {
      await this.#ensureDir();
      const probe = join(this.dir, `.write-check-${crypto.randomUUID()}.tmp`);
      await Deno.writeFile(probe, new Uint8Array(), { createNew: true, mode: 0o600 });
      await Deno.remove(probe);
      await this.#refuseIfFenced();
    } catch (error) {
      if (error instanceof SessionStoreError) throw error;
      throw new SessionStoreError(
        `Sessions directory ${this.dir} cannot be written: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * A new session handle; nothing is written until the first assistant message.
   *
   * @param options Conversation metadata and working directory for the header.
   * @returns The session.
   */
  create(options: CreateSessionOptions = {}): Session {
    this.#assertOpen();
    return new Session(addPending(this.#pending, options), this, false, options.metadata);
  }

  /**
   * One owner's view of this store: it reaches that owner's sessions only,
   * and has no store-wide administration (see {@linkcode OwnerView}).
   *
   * @param ownerId The owner.
   * @returns The view, sharing this store's files and locks.
   */
  forOwner(ownerId: string): OwnerView {
    return new OwnerView(this, ownerId);
  }

  /**
   * The owner of a session, stored (its header's) or created and not written yet.
   *
   * @param id The session id.
   * @returns The owner, `undefined` when it has none (or the header cannot be read), `null`
   *   when there is no such session.
   */
  async ownerOf(id: string): Promise<string | undefined | null> {
    this.#assertOpen();
    const summary = await this.#summary(checkSessionId(id));
    if (summary) return summary.info.ownerId;
    return this.#pending.has(id) ? this.#pending.get(id)!.ownerId : null;
  }

  /**
   * Sessions, newest modified first, from each file's sidecar summary
   * (rebuilt from the file when missing or stale).
   *
   * @param options How many to return, and whose (`ownerId`).
   * @returns The sessions.
   */
  async list(options: ListSessionsOptions = {}): Promise<SessionInfo[]> {
    this.#assertOpen();
    const summaries = await this.#listSummaries();
    const infos = await Promise.all(
      // Only a running session or one this store writes needs a look beyond its summary.
      [...summaries.values()].map(({ info }) =>
        info.state?.status === "running" || this.#writers.has(info.id) ? this.#live(info) : info
      ),
    );
    const owned = options.ownerId === undefined
      ? infos
      : infos.filter((info) => info.ownerId === options.ownerId);
    owned.sort(newestFirst);
    return options.limit === undefined ? owned : owned.slice(0, options.limit);
  }

  /**
   * The session with this id, or the only one whose id starts with it.
   *
   * @param idOrPrefix An id or a prefix of one.
   * @param options Whose sessions to look in (`ownerId`; default everyone's).
   * @returns The session, or `null` when none matches.
   * @throws {AmbiguousSessionIdError} When several match (naming only those in scope).
   */
  async resolve(idOrPrefix: string, options: ResolveOptions = {}): Promise<Session | null> {
    this.#assertOpen();
    checkSessionId(idOrPrefix);
    const inScope = (info: SessionInfo | null) =>
      info !== null && (options.ownerId === undefined || info.ownerId === options.ownerId);
    const exact = await this.#info(idOrPrefix);
    if (exact && inScope(exact)) return new Session(exact, this);
    let matches = (await this.#storedIds()).filter((id) => id.startsWith(idOrPrefix)).sort();
    if (options.ownerId !== undefined) {
      const infos = await Promise.all(matches.map((id) => this.#info(id)));
      matches = matches.filter((_, index) => inScope(infos[index] ?? null));
    }
    if (matches.length > 1) {
      throw new AmbiguousSessionIdError(
        idOrPrefix,
        matches.slice(0, AMBIGUITY_SHOWN),
        matches.length,
      );
    }
    const info = matches[0] ? await this.#info(matches[0]) : null;
    return info ? new Session(info, this) : null;
  }

  /**
   * The most recently modified session.
   *
   * @returns It, or `null` when there are none.
   */
  async latest(): Promise<Session | null> {
    const [info] = await this.list({ limit: 1 });
    return info ? new Session(info, this) : null;
  }

  /**
   * The conversation on the active path, with the header's metadata. A
   * torn last line is ignored; any other damage throws.
   *
   * @param id The session id.
   * @returns The conversation, or `null` when no such file exists.
   * @throws {SessionCorruptError} Naming the file and line of the damage.
   */
  async load(id: string): Promise<Conversation | null> {
    this.#assertOpen();
    const file = await this.#readFileState(checkSessionId(id));
    if (!file) return null;
    try {
      return await this.#loadPath(id, file, true);
    } catch (error) {
      // The stored index may be what is wrong (edited, or damaged in ways its
      // check cannot see): the file itself decides, indexed again.
      if (!(error instanceof SessionCorruptError)) throw error;
      return await this.#loadPath(id, file, false);
    }
  }

  /** The active path's conversation, through the stored tree index when `useStored`. */
  async #loadPath(id: string, file: FileState, useStored: boolean): Promise<Conversation> {
    const { index, stored, stale } = await this.#treeIndex(id, file, useStored);
    const path = this.#path(id);
    // Only the path's lines are decoded, and checked unless a load checked them before.
    const positions = indexedPath(index);
    const texts = lineTexts(
      file.bytes,
      positions.map((at) => [index.starts[at]!, index.ends[at]!]),
    );
    let checkedStored = false;
    const messages = positions.map((at, step) => {
      const line = index.lineNumbers[at]!;
      const check = index.checked[at] !== 1;
      try {
        const entry = readMessageLine(texts[step]!, line, index.ids[at]!, check);
        index.checked[at] = 1;
        if (check && at < stored) checkedStored = true;
        return entry.message;
      } catch (error) {
        throw new SessionCorruptError(path, line, errorMessage(error), this.#repairHint(id));
      }
    });
    if (stale || checkedStored) await writeTreeIndex(this.dir, id, index);
    return new Conversation(messages, index.metadata);
  }

  /**
   * The session file's tree index, brought up to date: read from its
   * sidecar when that still describes the file, and the lines appended
   * since read (up to their tree fields). `stored` is how many entries the
   * sidecar holds; `stale` says it should be written again (there was none,
   * or much was appended since: a few lines are cheaper to read again).
   */
  async #treeIndex(
    id: string,
    file: FileState,
    useStored: boolean,
  ): Promise<{ index: TreeIndex; stored: number; stale: boolean }> {
    const known = useStored ? await readTreeIndex(this.dir, id, file) : null;
    const stored = known?.ids.length ?? 0;
    if (known && known.covered === file.bytes.length) return { index: known, stored, stale: false };
    const path = this.#path(id);
    const offset = known?.covered ?? 0;
    const parsed = parseSession(file.bytes.subarray(offset), path, {
      lazy: true,
      after: known?.lines ?? 0,
    });
    if (known) this.#requireReadable(parsed, id);
    else this.#requireIntact(parsed, id);
    const recordOf = (at: number) => parsed.messages[at]?.line ?? 0;
    let links: TreeLink[];
    try {
      links = readLinks(parsed.messages, path, recordOf, known?.ids);
    } catch (error) {
      throw withRepairHint(error, this.#repairHint(id));
    }
    const index = extendTreeIndex(known, { parsed, links, offset, file });
    const stale = !known || index.covered - known.covered > INDEX_REWRITE_BYTES;
    return { index, stored, stale };
  }

  /**
   * Every entry of the session's tree, and its active leaf (the last
   * message line). Lines of a version 1 file read as one chain.
   *
   * @param id The session id.
   * @returns The tree, or `null` when no such file exists.
   * @throws {SessionCorruptError} Naming the file and line of the damage.
   */
  async loadTree(id: string): Promise<StoredTree | null> {
    this.#assertOpen();
    const parsed = await this.#readParsed(checkSessionId(id));
    return parsed ? this.#tree(parsed, id) : null;
  }

  /**
   * A new session holding the path from a root to `entryId`, recording
   * this one as its parent session.
   *
   * @param id The session to fork.
   * @param entryId The last entry to copy (an id from its tree).
   * @returns The new session.
   * @throws {SessionNotFoundError} When there is no such session.
   */
  fork(id: string, entryId: string): Promise<Session> {
    return forkSession(this, id, entryId, this.dir);
  }

  /**
   * Appends durably: the lines are fsynced before the promise resolves. An
   * append takes the session's lock, held while its turn runs (the state is
   * `running`) and let go, with the file, when the session is idle again;
   * the first write of a new session creates its file atomically.
   *
   * @param sessionId The session.
   * @param messages The messages, in order.
   * @param options The message count the writer expects.
   * @throws {SessionInUseError} When another writer holds the session.
   * @throws {SessionChangedError} When the session has another message count than expected.
   * @throws {SessionStoreError} When the file cannot be written ("Could not save the session to …").
   */
  async appendMessages(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options: AppendOptions = {},
  ): Promise<void> {
    this.#assertOpen();
    checkSessionId(sessionId);
    if (messages.length === 0) return;
    const task = this.#serialize(sessionId, () =>
      this.#turnWrite(sessionId, async (writer) => {
        checkExpectedCount(sessionId, options.expectedCount, writer.summary.messageCount);
        await this.#appendLines(sessionId, writer, messages, options.writtenAt);
      }));
    await task.catch((error) => {
      throw saveFailure(error, this.#path(sessionId));
    });
  }

  /**
   * Checks, writing nothing, that an append now would not be refused: the
   * session's lock is free or this store's, and its message count is
   * `expectedCount` when given.
   *
   * @param sessionId The session.
   * @param options The message count the writer expects.
   * @throws {SessionInUseError} When another writer holds the session.
   * @throws {SessionChangedError} When the session has another message count than expected.
   */
  async checkAppend(sessionId: string, options: AppendOptions = {}): Promise<void> {
    this.#assertOpen();
    checkSessionId(sessionId);
    await this.#serialize(sessionId, () =>
      this.#turnWrite(sessionId, (writer) => {
        checkExpectedCount(sessionId, options.expectedCount, writer.summary.messageCount);
        return Promise.resolve();
      }));
  }

  /**
   * Replaces the session's conversation: the messages are stored as a new
   * branch from the root, which becomes the active path, and the old entries
   * stay in the tree. The file with the branch added is fsynced and renamed
   * over the old one, so a crash leaves one or the other, never a mix. An
   * empty replacement leaves only the header (metadata, cwd, owner, the
   * current name), as a tree has no empty path. Takes the lock as an append
   * does.
   *
   * @param sessionId The session.
   * @param messages The whole new conversation, in order.
   * @param options The message count the writer expects.
   * @throws {SessionInUseError} When another writer holds the session.
   * @throws {SessionChangedError} When the session has another message count than expected.
   * @throws {SessionCorruptError} When the file is damaged (repair it first).
   */
  async replaceConversation(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options: AppendOptions = {},
  ): Promise<void> {
    this.#assertOpen();
    checkSessionId(sessionId);
    const task = this.#serialize(sessionId, () =>
      this.#turnWrite(sessionId, async (writer) => {
        checkExpectedCount(sessionId, options.expectedCount, writer.summary.messageCount);
        const branch = replacementBranch(messages);
        if (branch.length === 0) await this.#rewrite(sessionId, writer);
        else await this.#appendLines(sessionId, writer, branch, undefined, true);
      }));
    await task.catch((error) => {
      throw saveFailure(error, this.#path(sessionId));
    });
  }

  /**
   * Runs a write of the session's turn with its writer. The fence is read
   * only once the lock is held (taken now, or held since the turn began), so
   * a write either lands before a migration's
   * {@linkcode FileSystemJSONLStore.drainWriters} finds the lock free, or
   * reads the fence and is refused. The lock is let go when the session is
   * idle again, and when the fence refused the write: the turn cannot go on
   * in this store, and the migration is waiting for the lock.
   */
  async #turnWrite(id: string, write: (writer: Writer) => Promise<void>): Promise<void> {
    const writer = this.#writers.get(id) ?? await this.#openWriter(id);
    this.#writers.set(id, writer);
    let refused = true;
    try {
      await this.#refuseIfFenced();
      refused = false;
      await write(writer);
    } finally {
      // Between turns the session is free, and this store holds no descriptors for it.
      if (refused || writer.summary.state?.status !== "running") this.#dropWriter(id);
    }
  }

  /** Leaves only the session's header. */
  async #rewrite(id: string, writer: Writer): Promise<void> {
    await loadRecordSchemas();
    const path = this.#path(id);
    const pending = this.#pending.get(id);
    let header = newHeader(id, pending ?? { created: writer.summary.created });
    if (writer.file) {
      const parsed = parseSession(await Deno.readFile(path), path);
      header = { ...this.#requireIntact(parsed, id), version: JSONL_FORMAT_VERSION };
      if (parsed.name) header.name = parsed.name;
      else delete header.name;
    }
    const bytes = encoder.encode(headerLine(header));
    await this.#replaceFile(path, bytes);
    writer.file?.close();
    writer.file = await this.#reopen(path);
    writer.size = bytes.length;
    writer.summary = summarize(id, parseSession(bytes, path));
    this.#pending.delete(id);
    await this.#writeSidecar(id, writer);
  }

  async #appendLines(
    sessionId: string,
    writer: Writer,
    messages: readonly PersistentMessage[],
    timestamp = new Date().toISOString(),
    whole = false,
  ): Promise<void> {
    const lines = messages.map((entry) => messageLine(entry, timestamp)).join("");
    await this.#write(sessionId, writer, lines, whole);
    const batch = summarizeBatch(messages, {
      state: writer.summary.state,
      count: writer.summary.messageCount,
    });
    writer.summary.messageCount += messages.length;
    writer.summary.modified = timestamp;
    foldSummary(writer.summary, batch);
    await this.#writeSidecar(sessionId, writer);
  }

  /** Closes the session's file and releases its lock, if this store holds them. */
  #dropWriter(id: string): void {
    const writer = this.#writers.get(id);
    this.#writers.delete(id);
    writer?.file?.close();
    writer?.lock.release();
  }

  /**
   * Case-insensitive substring search over message text (text, thinking,
   * system, summaries, tool result text), newest sessions first. Damaged
   * sessions are skipped.
   *
   * @param query The text to find.
   * @param options How many hits to return (default 50), and in whose sessions (`ownerId`).
   * @returns The hits.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const needle = query.trim().toLowerCase();
    const limit = options.limit ?? 50;
    const hits: SearchHit[] = [];
    if (needle === "") return hits;
    const owner = options.ownerId === undefined ? {} : { ownerId: options.ownerId };
    for (const info of await this.list(owner)) {
      const parsed = await this.#readParsed(info.id).catch(() => null);
      if (!parsed || parsed.problems.length > 0) continue;
      for (const [index, { message }] of parsed.messages.entries()) {
        const text = searchableText(message);
        const at = text.toLowerCase().indexOf(needle);
        if (at === -1) continue;
        hits.push({
          sessionId: info.id,
          messageIndex: index,
          role: message.role,
          snippet: excerpt(text, at, needle.length),
        });
        if (hits.length >= limit) return hits;
      }
    }
    return hits;
  }

  /**
   * Names a session by appending a `name` line (the header is never rewritten).
   *
   * @param id The session.
   * @param name The new name (`""` clears it).
   */
  async rename(id: string, name: string): Promise<void> {
    this.#assertOpen();
    checkSessionId(id);
    return await this.#serialize(id, async () => {
      const pending = this.#pending.get(id);
      if (pending && !await this.#exists(id)) {
        pending.name = name;
        return;
      }
      await this.#withWriter(id, async (writer) => {
        await this.#write(id, writer, nameLine(name, new Date().toISOString()));
        if (name === "") delete writer.summary.name;
        else writer.summary.name = name;
        await this.#writeSidecar(id, writer);
      });
    });
  }

  /**
   * Labels an entry: a `label` line is appended (an empty one removes it).
   *
   * @param id The session.
   * @param entryId The entry, an id from its tree.
   * @param label The label (`null` or `""`: none).
   * @throws {SessionNotFoundError} When there is no such session.
   * @throws {Error} When the entry is not in the session.
   */
  async setLabel(id: string, entryId: string, label: string | null): Promise<void> {
    this.#assertOpen();
    checkSessionId(id);
    return await this.#serialize(id, async () => {
      const tree = await this.loadTree(id);
      if (!tree) throw new SessionNotFoundError(id, this.dir);
      if (!tree.entries.some((entry) => entry.id === entryId)) throw unknownEntry(entryId);
      await this.#withWriter(id, async (writer) => {
        await this.#write(id, writer, labelLine(entryId, label ?? "", new Date().toISOString()));
        await this.#writeSidecar(id, writer);
      });
    });
  }

  /**
   * Deletes a session's file, sidecar and lock file (backups are kept). A
   * damaged session can be deleted too, and so can one that cannot be read
   * in a store a migration fenced: no migration can copy it.
   *
   * @param id The session.
   * @throws {SessionInUseError} When another process holds it.
   * @throws {SessionNotFoundError} When there is no such session.
   * @throws {SessionStoreMigratedError} When the store is fenced and the session reads (it is,
   *   or will be, in the new store: delete it there).
   */
  async delete(id: string): Promise<void> {
    this.#assertOpen();
    checkSessionId(id);
    return await this.#serialize(id, async () => {
      const wasPending = this.#pending.delete(id);
      if (wasPending && !await this.#exists(id)) return;
      const cached = this.#writers.get(id);
      const unreadable = () => this.loadTree(id).then(() => false, () => true);
      await this.#withWriter(id, async (writer) => {
        await Deno.remove(this.#path(id));
        await Deno.remove(this.#sidecarPath(id)).catch(ignoreNotFound);
        await removeTreeIndex(this.dir, id);
        // Unlinked while held, so no other process can lock the old file meanwhile.
        await Deno.remove(this.#lockPath(id)).catch(ignoreNotFound);
        writer.file?.close();
        writer.file = null;
      }, { asIs: true, pastFence: unreadable });
      cached?.lock.release();
      this.#writers.delete(id);
    });
  }

  /**
   * The session as Markdown.
   *
   * @param id The session.
   * @returns The document.
   * @throws {SessionNotFoundError} When there is no such session.
   */
  async export(id: string): Promise<string> {
    const conversation = await this.load(id);
    const summary = await this.#summary(id);
    if (!conversation || !summary) throw new SessionNotFoundError(id, this.dir);
    return exportMarkdown(summary.info, conversation);
  }

  /**
   * Rewrites a damaged session file with its readable lines, after copying
   * the original to `<id>.jsonl.bak-<time>`. A damaged or missing header is
   * replaced by a minimal one (its metadata is lost); a damaged one is also
   * reported as dropped. An entry id used twice is given a new id where it
   * is used again, and the lines after that name the new one
   * (`reassigned`). Works in a store a migration fenced: it changes only
   * what a migration cannot copy.
   *
   * @param id The session.
   * @returns What was kept, dropped and given a new id.
   * @throws {SessionInUseError} When another process holds it.
   */
  async repair(id: string): Promise<RepairReport> {
    this.#assertOpen();
    checkSessionId(id);
    await loadRecordSchemas();
    return await this.#serialize(id, () =>
      this.#withWriter(id, async (writer) => {
        const path = this.#path(id);
        const bytes = await Deno.readFile(path);
        const parsed = parseSession(bytes, path);
        const dropped = [...parsed.problems, ...(parsed.torn ? [parsed.torn] : [])];
        const kept = parsed.goodLines.map(([start, end]) => bytes.subarray(start, end));
        const reassigned = reassignDuplicateIds(kept, lineNumbersOf(bytes, parsed.goodLines));
        const report: RepairReport = {
          path,
          backupPath: null,
          kept: parsed.goodLines.length,
          dropped,
          reassigned,
          headerRebuilt: parsed.header === null,
        };
        if (dropped.length === 0 && reassigned.length === 0 && parsed.header) return report;
        report.backupPath = `${path}.bak-${compactTime()}`;
        await writeNewFile(report.backupPath, bytes, true);
        if (!parsed.header) {
          const created = parsed.messages[0]?.timestamp ?? new Date().toISOString();
          kept.unshift(encoder.encode(headerLine(newHeader(id, { created }))));
          report.kept++;
        }
        await this.#replaceFile(path, concatBytes(kept));
        writer.file?.close();
        writer.file = await this.#reopen(path);
        const repaired = parseSession(await Deno.readFile(path), path);
        writer.size = repaired.validEnd;
        writer.summary = summarize(id, repaired);
        await this.#writeSidecar(id, writer);
        return report;
      }, { asIs: true, pastFence: () => Promise.resolve(true) }));
  }

  /**
   * Lets go of a session this store writes: closes its file and releases
   * its lock, so a long-lived store keeps no handles for sessions it is
   * done with and another writer may take the session. The next append
   * takes it again.
   *
   * @param id The session.
   */
  async release(id: string): Promise<void> {
    this.#assertOpen();
    checkSessionId(id);
    await this.#serialize(id, () => Promise.resolve(this.#dropWriter(id)));
  }

  /**
   * The migration fence (`migrated.json` in the directory), or `null`.
   *
   * @returns The fence.
   * @throws {SessionStoreError} When the file is damaged.
   */
  async migrationFence(): Promise<MigrationFence | null> {
    const text = await nullIfMissing(Deno.readTextFile(this.#fencePath())).catch(
      // No directory to hold a fence: the write that follows names the problem.
      (error) => error instanceof Deno.errors.NotADirectory ? null : Promise.reject(error),
    );
    if (text === null) return null;
    await loadRecordSchemas();
    return parseFence(text, this.#fencePath());
  }

  /**
   * Sets the migration fence (written atomically), or lifts it with `null`.
   *
   * @param fence The fence.
   */
  async setMigrationFence(fence: MigrationFence | null): Promise<void> {
    this.#assertOpen();
    if (fence === null) return await Deno.remove(this.#fencePath()).catch(ignoreNotFound);
    await this.#ensureDir();
    await this.#replaceFile(this.#fencePath(), encoder.encode(JSON.stringify(fence)));
  }

  async #refuseIfFenced(): Promise<void> {
    refuseIfFenced(this.dir, await this.migrationFence());
  }

  /**
   * Waits until no writer, in this process or another, holds any session
   * of the directory (each lock is probed, never taken). Called once the
   * migration fence is set, it returns when every write that read no fence
   * has landed: a write reads the fence only while it holds the session's
   * lock, and a running turn's next write after the fence is refused and
   * lets the lock go. New sessions count too (a lock file is made before
   * the session's file).
   *
   * @param timeoutMs How long to wait for the last holder.
   * @throws {SessionInUseError} Naming a session still held after `timeoutMs`, and its holder.
   */
  async drainWriters(timeoutMs: number): Promise<void> {
    this.#assertOpen();
    const deadline = Date.now() + timeoutMs;
    // A lock seen free once stays safe: whoever takes it later reads the fence.
    let held = await this.#stillHeld(await this.#storedIds(".lock"));
    while (held.length > 0) {
      if (Date.now() >= deadline) {
        const text = await Deno.readTextFile(this.#lockPath(held[0]!)).catch(() => "");
        throw new SessionInUseError(held[0]!, text);
      }
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      held = await this.#stillHeld(held);
    }
  }

  /** Those of `ids` whose lock a writer holds. */
  async #stillHeld(ids: readonly string[]): Promise<string[]> {
    const held: string[] = [];
    for (let i = 0; i < ids.length; i += LIST_CONCURRENCY) {
      const batch = ids.slice(i, i + LIST_CONCURRENCY);
      const probes = await Promise.all(batch.map((id) => FileLock.isHeld(this.#lockPath(id))));
      held.push(...batch.filter((_, k) => probes[k]));
    }
    return held;
  }

  /** Releases every lock and file handle; the store cannot be used afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#queues.values()]);
    for (const writer of this.#writers.values()) {
      writer.file?.close();
      writer.lock.release();
    }
    this.#writers.clear();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`The session store at ${this.dir} is closed`);
  }

  #path(id: string): string {
    return join(this.dir, `${id}.jsonl`);
  }

  #fencePath(): string {
    return join(this.dir, "migrated.json");
  }

  #sidecarPath(id: string): string {
    return join(this.dir, `${id}.meta.json`);
  }

  #lockPath(id: string): string {
    return join(this.dir, `${id}.lock`);
  }

  /** Runs `task` after every earlier mutation of the same session. */
  #serialize<T>(id: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(id) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(task);
    const settled = next.catch(() => {});
    this.#queues.set(id, settled);
    settled.then(() => {
      if (this.#queues.get(id) === settled) this.#queues.delete(id);
    });
    return next;
  }

  /**
   * Runs `task` with the session's writer, releasing the lock after unless an
   * append holds it; the fence is read with the lock held, as for a turn's writes.
   */
  async #withWriter<T>(
    id: string,
    task: (writer: Writer) => Promise<T>,
    options: WriterOptions = {},
  ): Promise<T> {
    const cached = this.#writers.get(id);
    if (!await this.#exists(id)) throw new SessionNotFoundError(id, this.dir);
    const writer = cached ?? await this.#openWriter(id, !options.asIs);
    try {
      const fence = await this.migrationFence();
      if (fence && !await options.pastFence?.()) refuseIfFenced(this.dir, fence);
      return await task(writer);
    } finally {
      if (!cached) {
        writer.file?.close();
        writer.lock.release();
      }
    }
  }

  async #ensureDir(): Promise<void> {
    try {
      await Deno.mkdir(this.dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      const blocked = error instanceof Deno.errors.AlreadyExists ||
        error instanceof Deno.errors.NotADirectory;
      if (blocked) throw notADirectory(this.dir);
      throw error;
    }
  }

  /**
   * Takes the session's lock and opens its file, truncating a torn last line.
   * With `verify` off (for repair) the file is opened as it is.
   */
  async #openWriter(id: string, verify = true): Promise<Writer> {
    await this.#ensureDir();
    const lock = await FileLock.tryAcquire(this.#lockPath(id));
    if (!(lock instanceof FileLock)) {
      // A fenced store would refuse the write anyway: say where sessions went.
      await this.#refuseIfFenced();
      throw new SessionInUseError(id, lock.holder);
    }
    let file: Deno.FsFile | null = null;
    try {
      const path = this.#path(id);
      // Left by a write cut off before its rename; with the lock held, no write is making it.
      await Deno.remove(`${path}.tmp`).catch(ignoreNotFound);
      file = await openInPlace(path);
      if (!file) return { lock, file: null, size: 0, summary: this.#pendingInfo(id) };
      const stat = await file.stat();
      await loadRecordSchemas();
      const fresh = this.#freshSidecar(id, stat, await this.#sidecarText(id));
      if (fresh && await headerVersion(file) === JSONL_FORMAT_VERSION) {
        return { lock, file, size: fresh.size, summary: fresh.info };
      }
      if (!verify) return { lock, file, size: stat.size, summary: this.#pendingInfo(id) };
      const bytes = await Deno.readFile(path);
      const parsed = parseSession(bytes, path);
      const header = this.#requireIntact(parsed, id);
      if (header.version < JSONL_FORMAT_VERSION) {
        // Migrated on the first write: the header says version 2 (so an older
        // panto refuses the file rather than misread a tree); the lines stay.
        const upgraded = concatBytes([
          encoder.encode(headerLine({ ...header, version: JSONL_FORMAT_VERSION })),
          bytes.subarray(parsed.goodLines[0]?.[1] ?? 0, parsed.validEnd),
        ]);
        await this.#replaceFile(path, upgraded);
        file.close();
        file = await this.#reopen(path);
        return { lock, file, size: upgraded.length, summary: summarize(id, parsed) };
      }
      if (parsed.validEnd < stat.size) {
        await file.truncate(parsed.validEnd);
        await file.syncData();
      }
      return { lock, file, size: parsed.validEnd, summary: summarize(id, parsed) };
    } catch (error) {
      file?.close();
      lock.release();
      throw error;
    }
  }

  #pendingInfo(id: string): SessionInfo {
    const pending = this.#pending.get(id);
    const info = emptySessionInfo(id, pending?.created ?? new Date().toISOString());
    if (pending?.cwd !== undefined) info.cwd = pending.cwd;
    if (pending?.ownerId !== undefined) info.ownerId = pending.ownerId;
    if (pending?.parentSessionId !== undefined) info.parentSessionId = pending.parentSessionId;
    if (pending?.name) info.name = pending.name;
    return info;
  }

  /**
   * Writes `text` at the writer's end and fsyncs; a new session's file is
   * created atomically, and so, when `whole`, is the file with `text` added
   * (all of it or none after a crash).
   */
  async #write(id: string, writer: Writer, text: string, whole = false): Promise<void> {
    if (whole && writer.file !== null) {
      const kept = (await Deno.readFile(this.#path(id))).subarray(0, writer.size);
      const bytes = concatBytes([kept, encoder.encode(text)]);
      await this.#replaceFile(this.#path(id), bytes);
      writer.file.close();
      writer.file = await this.#reopen(this.#path(id));
      writer.size = bytes.length;
      return;
    }
    if (writer.file === null) {
      const header = headerLine(
        newHeader(id, this.#pending.get(id) ?? { created: writer.summary.created }),
      );
      const bytes = encoder.encode(header + text);
      await this.#replaceFile(this.#path(id), bytes);
      writer.file = await this.#reopen(this.#path(id));
      writer.size = bytes.length;
      this.#pending.delete(id);
      return;
    }
    const bytes = encoder.encode(text);
    try {
      await writer.file.seek(writer.size, Deno.SeekMode.Start);
      await writeAll(writer.file, bytes);
      await writer.file.syncData();
    } catch (error) {
      // Leave no partial line behind for the next append to build on.
      await writer.file.truncate(writer.size).catch(() => {});
      throw error;
    }
    writer.size += bytes.length;
  }

  /** The session file just renamed into place, opened to write (never through a link). */
  async #reopen(path: string): Promise<Deno.FsFile> {
    const file = await openInPlace(path);
    if (file) return file;
    throw new SessionStoreError(
      `Session file ${path} disappeared right after it was written: check what else writes ` +
        `to the sessions directory`,
    );
  }

  /** Atomically puts `bytes` at `path`: temp file, fsync, rename, fsync the directory. */
  async #replaceFile(path: string, bytes: Uint8Array): Promise<void> {
    const temp = `${path}.tmp`;
    await writeNewFile(temp, bytes, true);
    await Deno.rename(temp, path);
    const dir = await Deno.open(this.dir, { read: true });
    try {
      await dir.sync();
    } finally {
      dir.close();
    }
  }

  /**
   * Best effort: the lines are already durable, so a failure here must not
   * fail the append (the caller would write them again). A sidecar left
   * stale is rebuilt by the next reader.
   */
  async #writeSidecar(id: string, writer: Writer): Promise<void> {
    if (!writer.file) return;
    try {
      const { size, mtime } = await writer.file.stat();
      await this.#saveSidecar(id, { info: writer.summary, size, mtimeMs: mtime?.getTime() ?? 0 });
    } catch {
      // Stale or missing sidecars are rebuilt from the file.
    }
  }

  /**
   * Sidecars are a cache, written without fsync: a reader that sees a
   * half-written, stale or missing one rebuilds the summary from the file.
   */
  async #saveSidecar(id: string, summary: Summary): Promise<void> {
    const body = JSON.stringify({ version: SIDECAR_VERSION, ...summary });
    await writeNewFile(this.#sidecarPath(id), encoder.encode(body), false);
  }

  /** The sidecar's text, or `null` when there is none to read. */
  #sidecarText(id: string): Promise<string | null> {
    return Deno.readTextFile(this.#sidecarPath(id)).catch(() => null);
  }

  /** The sidecar's summary when it describes the file as it is now, else `null`. */
  #freshSidecar(id: string, stat: Deno.FileInfo, text: string | null): Summary | null {
    if (text === null) return null;
    try {
      const sidecar = recordSchemas().sidecarSchema.parse(JSON.parse(text));
      if (sidecar.version !== SIDECAR_VERSION) return null;
      const fresh = sidecar.size === stat.size && sidecar.mtimeMs === (stat.mtime?.getTime() ?? 0);
      return fresh && sidecar.info.id === id ? sidecar : null;
    } catch {
      return null;
    }
  }

  /** A stored session's list entry, as {@linkcode FileSystemJSONLStore.#live} tells it. */
  async #info(id: string): Promise<SessionInfo | null> {
    const summary = await this.#summary(id);
    return summary ? await this.#live(summary.info) : null;
  }

  /**
   * The list entry as it is now: this store's own for a session it writes,
   * else the stored one with a `running` state no writer holds (a crash
   * cut its turn off) reported as `interrupted`.
   */
  async #live(info: SessionInfo): Promise<SessionInfo> {
    const writer = this.#writers.get(info.id);
    if (writer?.file) return structuredClone(writer.summary);
    const state = info.state;
    if (state?.status === "running" && !await FileLock.isHeld(this.#lockPath(info.id))) {
      info.state = { ...state, status: "interrupted" };
    }
    return info;
  }

  /**
   * Every stored session's summary: from the list index alone when the
   * directory has not changed since it was built; else each file is
   * checked against its index entry (one stat), the changed ones are read
   * from their sidecars or files, and the index is written again.
   */
  async #listSummaries(): Promise<Map<string, Summary>> {
    const index = await readListIndex(this.dir);
    const unchanged = index !== null && index.dirMtimeMs !== null &&
      index.dirMtimeMs === await this.#dirMtime();
    if (unchanged) {
      const summaries = new Map(Object.entries(index.sessions));
      await this.#readSummaries(summaries, [...summaries.keys()].filter(unreadableIn(summaries)));
      return summaries;
    }
    // Made before the directory's mtime is read: making it changes that mtime.
    await Deno.mkdir(indexDir(this.dir), { mode: 0o700 }).catch(() => {});
    const dirMtimeMs = await this.#dirMtime();
    const summaries = new Map<string, Summary>();
    const changed: string[] = [];
    const indexed = new Map(Object.entries(index?.sessions ?? {}));
    const temps: string[] = [];
    for (const id of await this.#storedIds(".jsonl", temps)) {
      const entry = indexed.get(id);
      const fresh = entry && !unreadableIn(indexed)(id) && this.#describes(id, entry);
      if (fresh) summaries.set(id, entry);
      else changed.push(id);
    }
    await this.#readSummaries(summaries, changed);
    // Sessions unreadable before and still are need no new index.
    const stillUnreadable = (id: string) =>
      unreadableIn(indexed)(id) && unreadableIn(summaries)(id);
    if (!changed.every(stillUnreadable) || index?.dirMtimeMs !== dirMtimeMs) {
      await writeListIndex(this.dir, { dirMtimeMs, sessions: Object.fromEntries(summaries) });
    }
    await this.#removeLeftoverTemps(temps);
    return summaries;
  }

  /**
   * Removes the `<id>.jsonl.tmp` files left by writes cut off before their
   * rename (a kill -9 in a `replaceConversation` or a first write), each
   * with its session's lock taken, so a write in progress keeps its own.
   * Best effort: a list never fails over a temp file.
   */
  async #removeLeftoverTemps(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      try {
        const lock = await FileLock.tryAcquire(this.#lockPath(id));
        if (!(lock instanceof FileLock)) continue;
        try {
          await Deno.remove(`${this.#path(id)}.tmp`).catch(ignoreNotFound);
        } finally {
          lock.release();
        }
      } catch {
        // Left for the session's next writer, which removes it under its lock.
      }
    }
  }

  /** Reads the summaries of `ids` into `summaries` (dropping those with no file any more). */
  async #readSummaries(summaries: Map<string, Summary>, ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += LIST_CONCURRENCY) {
      const batch = ids.slice(i, i + LIST_CONCURRENCY);
      const read = await Promise.all(batch.map((id) => this.#summary(id)));
      read.forEach((summary, k) => {
        if (summary) summaries.set(batch[k]!, summary);
        else summaries.delete(batch[k]!);
      });
    }
  }

  /** Whether the index entry was made from the session file as it is now. */
  #describes(id: string, entry: Summary): boolean {
    try {
      // One synchronous stat per session: thousands of them, each an await, cost more.
      const stat = Deno.statSync(this.#path(id));
      return stat.isFile && stat.size === entry.size &&
        (stat.mtime?.getTime() ?? 0) === entry.mtimeMs;
    } catch {
      return false;
    }
  }

  /** The sessions directory's mtime (ms), or `null` when it is not a directory. */
  async #dirMtime(): Promise<number | null> {
    const stat = await nullIfMissing(Deno.stat(this.dir)).catch(() => null);
    return stat?.isDirectory ? stat.mtime?.getTime() ?? null : null;
  }

  /** A stored session's list entry, or `null` when it has no readable file. */
  async #summary(id: string): Promise<Summary | null> {
    const writer = this.#writers.get(id);
    if (writer?.file) {
      return { info: structuredClone(writer.summary), size: writer.size, mtimeMs: 0 };
    }
    // Both at once: listing thousands of sessions waits on these two reads per session.
    const [stat, text] = await Promise.all([
      nullIfMissing(Deno.stat(this.#path(id))),
      this.#sidecarText(id),
    ]);
    if (!stat) return null;
    const mtimeMs = stat.mtime?.getTime() ?? 0;
    if (!stat.isFile) return unreadable(id, stat, "not a regular file (a directory?)");
    await loadRecordSchemas();
    const fresh = this.#freshSidecar(id, stat, text);
    if (fresh) return fresh;
    let parsed: ParsedSession | null;
    try {
      parsed = await this.#readParsed(id);
    } catch (error) {
      const reason = error instanceof SessionCorruptError ? error.reason : errorMessage(error);
      return unreadable(id, stat, reason);
    }
    if (!parsed) return null;
    const summary = {
      info: summarize(id, parsed, new Date(mtimeMs).toISOString()),
      size: stat.size,
      mtimeMs,
    };
    // Only an intact file gets a sidecar: a writer trusts a fresh sidecar's
    // size as the end of the good lines, and must not append after a torn
    // line (the new line would merge with it) or past damage unchecked.
    const intact = parsed.header !== null && parsed.problems.length === 0 && !parsed.torn;
    if (intact) await this.#saveSidecar(id, summary).catch(() => {});
    return summary;
  }

  /**
   * Ids of the sessions with a file ending in `extension` (their lines, or
   * with `.lock`, their locks); with `temps`, the ids of `<id>.jsonl.tmp`
   * files are put there (a temp file is never a session).
   */
  async #storedIds(extension = ".jsonl", temps?: string[]): Promise<string[]> {
    const ids: string[] = [];
    try {
      for await (const entry of Deno.readDir(this.dir)) {
        if (temps && entry.name.endsWith(TEMP_EXTENSION)) {
          const id = entry.name.slice(0, -TEMP_EXTENSION.length);
          if (isSessionId(id)) temps.push(id);
        }
        if (!entry.name.endsWith(extension)) continue;
        const id = entry.name.slice(0, -extension.length);
        if (isSessionId(id)) ids.push(id);
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return ids;
      if (error instanceof Deno.errors.NotADirectory) throw notADirectory(this.dir);
      throw error;
    }
    return ids;
  }

  async #exists(id: string): Promise<boolean> {
    return (await nullIfMissing(Deno.stat(this.#path(id)))) !== null;
  }

  async #readParsed(id: string): Promise<ParsedSession | null> {
    const bytes = await this.#readBytes(id);
    return bytes && parseSession(bytes, this.#path(id));
  }

  /** The file's bytes, and the inode and mtime a tree index checks. */
  async #readFileState(id: string): Promise<FileState | null> {
    const bytes = await this.#readBytes(id);
    if (!bytes) return null;
    // After the read: a write between the two makes the index look stale, never fresh.
    const stat = await Deno.stat(this.#path(id));
    return { bytes, ino: stat.ino, mtimeMs: stat.mtime?.getTime() ?? null };
  }

  async #readBytes(id: string): Promise<Uint8Array | null> {
    const path = this.#path(id);
    const stat = await nullIfMissing(Deno.stat(path));
    if (!stat) return null;
    if (!stat.isFile) throw notAFile(path);
    // Every decode of a stored session's lines follows a read of them.
    await loadRecordSchemas();
    return await Deno.readFile(path);
  }

  #tree(parsed: ParsedSession, id: string): StoredTree {
    const header = this.#requireIntact(parsed, id);
    let tree: StoredTree;
    try {
      tree = readTree(
        parsed.messages,
        header.metadata,
        this.#path(id),
        (index) => parsed.messages[index]?.line ?? 0,
      );
    } catch (error) {
      throw withRepairHint(error, this.#repairHint(id));
    }
    for (const entry of tree.entries) {
      const label = parsed.labels.get(entry.id);
      if (label !== undefined) entry.label = label;
    }
    return tree;
  }

  #repairHint(id: string): string {
    return `run repair on session ${id} to keep the readable lines (a backup is made)`;
  }

  #requireIntact(parsed: ParsedSession<unknown>, id: string): SessionHeader {
    this.#requireReadable(parsed, id);
    if (!parsed.header) {
      throw new SessionCorruptError(this.#path(id), 1, "no session header", this.#repairHint(id));
    }
    return parsed.header;
  }

  #requireReadable(parsed: ParsedSession<unknown>, id: string): void {
    const problem = parsed.problems[0];
    if (problem) {
      throw new SessionCorruptError(
        this.#path(id),
        problem.line,
        problem.reason,
        this.#repairHint(id),
      );
    }
  }
}

/** A tree error (an id used twice) with the way to fix it. */
function withRepairHint(error: unknown, hint: string): unknown {
  if (!(error instanceof SessionCorruptError) || error.reason.includes(hint)) return error;
  return new SessionCorruptError(error.location, error.line, error.reason, hint);
}

function newHeader(id: string, pending: PendingSession): SessionHeader {
  const header: SessionHeader = {
    type: "session",
    version: JSONL_FORMAT_VERSION,
    id,
    created: pending.created,
  };
  if (pending.cwd !== undefined) header.cwd = pending.cwd;
  if (pending.metadata !== undefined) header.metadata = pending.metadata;
  if (pending.name) header.name = pending.name;
  if (pending.ownerId !== undefined) header.ownerId = pending.ownerId;
  if (pending.parentSessionId !== undefined) header.parentSessionId = pending.parentSessionId;
  return header;
}

function summarize(id: string, parsed: ParsedSession, fallbackCreated = ""): SessionInfo {
  const created = parsed.header?.created ?? parsed.messages[0]?.timestamp ?? fallbackCreated;
  const batch = summarizeBatch(parsed.messages);
  const info: SessionInfo = {
    id,
    created,
    modified: parsed.messages.at(-1)?.timestamp ?? created,
    messageCount: parsed.messages.length,
    lastUserMessage: batch.lastUserMessage ?? "",
  };
  if (batch.firstUserMessage !== undefined) info.firstUserMessage = batch.firstUserMessage;
  if (parsed.name) info.name = parsed.name;
  if (batch.wire) info.wire = batch.wire;
  if (parsed.header?.cwd !== undefined) info.cwd = parsed.header.cwd;
  if (parsed.header?.ownerId !== undefined) info.ownerId = parsed.header.ownerId;
  if (parsed.header?.parentSessionId !== undefined) {
    info.parentSessionId = parsed.header.parentSessionId;
  }
  if (batch.state) info.state = batch.state;
  return info;
}

/** The list entry of a session that cannot be read: listed with the reason, never dropped. */
function unreadable(id: string, stat: Deno.FileInfo, reason: string): Summary {
  const mtimeMs = stat.mtime?.getTime() ?? 0;
  const info = emptySessionInfo(id, new Date(mtimeMs).toISOString());
  info.unreadable = reason;
  return { info, size: stat.size, mtimeMs };
}

/**
 * Whether the session is listed as unreadable. The reason can go without
 * its file or the directory changing (panto upgraded, permissions fixed),
 * so such an entry is always read again.
 */
function unreadableIn(summaries: ReadonlyMap<string, Summary>): (id: string) => boolean {
  return (id) => summaries.get(id)?.info.unreadable !== undefined;
}

function newestFirst(a: SessionInfo, b: SessionInfo): number {
  if (a.modified !== b.modified) return a.modified < b.modified ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * Writes a file 0600 in place of whatever is at `path`: the old entry is
 * unlinked and the new one created with O_EXCL, so a symbolic link planted
 * there is replaced, never followed.
 */
async function writeNewFile(path: string, bytes: Uint8Array, durable: boolean): Promise<void> {
  await Deno.remove(path).catch(ignoreNotFound);
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  try {
    await writeAll(file, bytes);
    if (durable) await file.sync();
  } finally {
    file.close();
  }
}

/** The format version in a session file's header line (0 when it has none). */
async function headerVersion(file: Deno.FsFile): Promise<number> {
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(4096);
  await file.seek(0, Deno.SeekMode.Start);
  for (let read = await file.read(buffer); read !== null; read = await file.read(buffer)) {
    const chunk = buffer.slice(0, read);
    const newline = chunk.indexOf(0x0a);
    chunks.push(newline === -1 ? chunk : chunk.subarray(0, newline));
    if (newline !== -1) break;
  }
  try {
    const version = JSON.parse(new TextDecoder().decode(concatBytes(chunks))).version;
    return typeof version === "number" ? version : 0;
  } catch {
    return 0;
  }
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

function compactTime(): string {
  return new Date().toISOString().replace(/[-:.]/g, "");
}

function notAFile(path: string): SessionStoreError {
  return new SessionStoreError(
    `Session file ${path} is not a regular file (a directory?): move it away`,
  );
}

function notADirectory(dir: string): SessionStoreError {
  return new SessionStoreError(
    `Sessions directory ${dir} is not a directory (it, or a folder above it, is a file)`,
  );
}

function ignoreNotFound(error: unknown): void {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}
