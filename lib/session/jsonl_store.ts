import { join } from "node:path";
import { errorMessage } from "../error_message.ts";
import type { Conversation } from "../conversation.ts";
import { SessionInUseError, SessionNotFoundError, SessionStoreError } from "./errors.ts";
import { FileLock } from "./file_lock.ts";
import { checkSessionId } from "./ids.ts";
import { ignoreNotFound, SessionFiles } from "./jsonl_files.ts";
import { labelLine, nameLine } from "./jsonl_format.ts";
import { loadActivePath, sessionTree } from "./jsonl_read.ts";
import { repairFile, type RepairReport } from "./jsonl_repair.ts";
import { LIST_CONCURRENCY, newestFirst, SessionSummaries } from "./jsonl_summaries.ts";
import { removeTreeIndex } from "./jsonl_tree_index.ts";
import { SessionWriters } from "./jsonl_writer.ts";
import { type MigrationFence, refuseIfFenced } from "./migration_fence.ts";
import type { OwnerView } from "./owner_view.ts";
import { loadRecordSchemas } from "./record_schemas.ts";
import { excerpt, searchableText } from "./serialize.ts";
import { Session } from "./session.ts";
import { checkExpectedCount } from "./store_common.ts";
import { type BatchWrite, StoreCore } from "./store_core.ts";
import { type StoredTree, unknownEntry } from "./tree.ts";
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

export type { RepairReport } from "./jsonl_repair.ts";

/** Options for {@linkcode FileSystemJSONLStore}. */
export interface FileSystemJSONLStoreOptions {
  /** The sessions directory (created 0700 when missing). */
  dir: string;
}

/** How often `drainWriters` looks at the locks still held. */
const DRAIN_POLL_MS = 50;
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
  readonly #files: SessionFiles;
  readonly #summaries: SessionSummaries;
  readonly #writers: SessionWriters;
  readonly #core: StoreCore;
  #queues = new Map<string, Promise<unknown>>();

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
    this.#files = new SessionFiles(options.dir);
    this.#core = new StoreCore(this, {
      location: options.dir,
      write: (id, batch) => this.#write(id, batch),
      saveLocation: (id) => this.#files.path(id),
    });
    this.#summaries = new SessionSummaries(this.#files, (id) => this.#writers.openSummary(id));
    this.#writers = new SessionWriters(this.#files, this.#summaries, this.#core.pending);
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
      await this.#files.ensureDir();
      const probe = join(this.dir, `.write-check-${crypto.randomUUID()}.tmp`);
      await Deno.writeFile(probe, new Uint8Array(), { createNew: true, mode: 0o600 });
      await Deno.remove(probe);
      refuseIfFenced(this.dir, await this.#files.readFence());
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
    return this.#core.create(options);
  }

  /**
   * One owner's view of this store: it reaches that owner's sessions only,
   * and has no store-wide administration (see {@linkcode OwnerView}).
   *
   * @param ownerId The owner.
   * @returns The view, sharing this store's files and locks.
   */
  forOwner(ownerId: string): OwnerView {
    return this.#core.forOwner(ownerId);
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
    const summary = await this.#summaries.summary(checkSessionId(id));
    return summary ? summary.info.ownerId : this.#core.pendingOwner(id);
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
    const summaries = await this.#summaries.list();
    const infos = await Promise.all(
      // Only a running session or one this store writes needs a look beyond its summary.
      [...summaries.values()].map(({ info }) =>
        info.state?.status === "running" || this.#writers.get(info.id) ? this.#live(info) : info
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
    let matches = (await this.#files.storedIds()).filter((id) => id.startsWith(idOrPrefix)).sort();
    if (options.ownerId !== undefined) {
      const infos = await Promise.all(matches.map((id) => this.#info(id)));
      matches = matches.filter((_, index) => inScope(infos[index] ?? null));
    }
    if (matches.length > 1) throw this.#core.ambiguous(idOrPrefix, matches, matches.length);
    const info = matches[0] ? await this.#info(matches[0]) : null;
    return info ? new Session(info, this) : null;
  }

  /**
   * The most recently modified session.
   *
   * @returns It, or `null` when there are none.
   */
  latest(): Promise<Session | null> {
    return this.#core.latest();
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
    const file = await this.#files.readFileState(checkSessionId(id));
    return file ? await loadActivePath(this.#files, id, file) : null;
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
    const parsed = await this.#files.readParsed(checkSessionId(id));
    return parsed ? sessionTree(parsed, this.#files.path(id), id) : null;
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
    return this.#core.fork(id, entryId);
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
  appendMessages(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options: AppendOptions = {},
  ): Promise<void> {
    return this.#core.append(sessionId, messages, options);
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
      this.#writers.turnWrite(sessionId, (writer) => {
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
  replaceConversation(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options: AppendOptions = {},
  ): Promise<void> {
    return this.#core.replace(sessionId, messages, options.expectedCount);
  }

  /** Writes an append's (or a replacement's) batch as a write of the session's turn. */
  #write(sessionId: string, batch: BatchWrite): Promise<void> {
    return this.#serialize(sessionId, () =>
      this.#writers.turnWrite(sessionId, async (writer) => {
        checkExpectedCount(sessionId, batch.expectedCount, writer.summary.messageCount);
        if (!batch.replaces) {
          await this.#writers.append(sessionId, writer, batch.messages, batch.writtenAt);
        } else if (batch.messages.length === 0) await this.#writers.rewrite(sessionId, writer);
        else await this.#writers.append(sessionId, writer, batch.messages, undefined, true);
      }));
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
      const parsed = await this.#files.readParsed(info.id).catch(() => null);
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
      if (this.#core.pending.has(id) && !await this.#files.exists(id)) {
        return this.#core.renamePending(id, name);
      }
      await this.#writers.withWriter(id, async (writer) => {
        await this.#writers.write(id, writer, nameLine(name, new Date().toISOString()));
        if (name === "") delete writer.summary.name;
        else writer.summary.name = name;
        await this.#writers.saveSidecar(id, writer);
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
      await this.#writers.withWriter(id, async (writer) => {
        const line = labelLine(entryId, label ?? "", new Date().toISOString());
        await this.#writers.write(id, writer, line);
        await this.#writers.saveSidecar(id, writer);
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
      const wasPending = this.#core.pending.delete(id);
      if (wasPending && !await this.#files.exists(id)) return;
      const unreadable = () => this.loadTree(id).then(() => false, () => true);
      await this.#writers.withWriter(id, async (writer) => {
        await Deno.remove(this.#files.path(id));
        await Deno.remove(this.#files.sidecarPath(id)).catch(ignoreNotFound);
        await removeTreeIndex(this.dir, id);
        // Unlinked while held, so no other process can lock the old file meanwhile.
        await Deno.remove(this.#files.lockPath(id)).catch(ignoreNotFound);
        writer.file?.close();
        writer.file = null;
      }, { asIs: true, pastFence: unreadable });
      this.#writers.drop(id);
    });
  }

  /**
   * The session as Markdown.
   *
   * @param id The session.
   * @returns The document.
   * @throws {SessionNotFoundError} When there is no such session.
   */
  export(id: string): Promise<string> {
    return this.#core.export(id, async () => (await this.#summaries.summary(id))?.info ?? null);
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
      this.#writers.withWriter(
        id,
        (writer) => repairFile(this.#files, this.#writers, id, writer),
        { asIs: true, pastFence: () => Promise.resolve(true) },
      ));
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
    await this.#serialize(id, () => Promise.resolve(this.#writers.drop(id)));
  }

  /**
   * The migration fence (`migrated.json` in the directory), or `null`.
   *
   * @returns The fence.
   * @throws {SessionStoreError} When the file is damaged.
   */
  migrationFence(): Promise<MigrationFence | null> {
    return this.#files.readFence();
  }

  /**
   * Sets the migration fence (written atomically), or lifts it with `null`.
   *
   * @param fence The fence.
   */
  async setMigrationFence(fence: MigrationFence | null): Promise<void> {
    this.#assertOpen();
    const path = this.#files.fencePath();
    if (fence === null) return await Deno.remove(path).catch(ignoreNotFound);
    await this.#files.ensureDir();
    await this.#files.replaceFile(path, encoder.encode(JSON.stringify(fence)));
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
    let held = await this.#stillHeld(await this.#files.storedIds(".lock"));
    while (held.length > 0) {
      if (Date.now() >= deadline) {
        const text = await Deno.readTextFile(this.#files.lockPath(held[0]!)).catch(() => "");
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
      const probes = await Promise.all(
        batch.map((id) => FileLock.isHeld(this.#files.lockPath(id))),
      );
      held.push(...batch.filter((_, k) => probes[k]));
    }
    return held;
  }

  /** Releases every lock and file handle; the store cannot be used afterwards. */
  async close(): Promise<void> {
    if (!this.#core.close()) return;
    await Promise.allSettled([...this.#queues.values()]);
    this.#writers.dropAll();
  }

  #assertOpen(): void {
    this.#core.assertOpen();
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

  /** A stored session's list entry, as {@linkcode FileSystemJSONLStore.#live} tells it. */
  async #info(id: string): Promise<SessionInfo | null> {
    const summary = await this.#summaries.summary(id);
    return summary ? await this.#live(summary.info) : null;
  }

  /**
   * The list entry as it is now: this store's own for a session it writes,
   * else the stored one with a `running` state no writer holds (a crash
   * cut its turn off) reported as `interrupted`.
   */
  async #live(info: SessionInfo): Promise<SessionInfo> {
    const open = this.#writers.openSummary(info.id);
    if (open) return open.info;
    const state = info.state;
    if (state?.status === "running" && !await FileLock.isHeld(this.#files.lockPath(info.id))) {
      info.state = { ...state, status: "interrupted" };
    }
    return info;
  }
}
