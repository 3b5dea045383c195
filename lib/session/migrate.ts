// Moving every session from one store to another (issue 14): copy, verify by
// count and digest, resume after a crash by skipping what verifies, and fence
// the old store so no later turn lands where nobody reads it.
import { errorMessage } from "../error_message.ts";
import { SessionInUseError, SessionStoreError } from "./errors.ts";
import type { MigrationFence } from "./migration_fence.ts";
import { stringifyWellFormed } from "./serialize.ts";
import type { Message } from "../message.ts";
import type { PersistentMessage, SessionInfo, SessionStore, WireIdentity } from "./types.ts";

/** Options for {@linkcode migrateSessions}. */
export interface MigrateOptions {
  /** The target as the user names it (`sqlite:/path`, a redacted URL): kept in the fence. */
  targetName: string;
  /** Called after each session, copied or found already verified. */
  onProgress?: (progress: MigrationProgress) => void;
  /**
   * How long to wait, once the source is fenced, for a turn running on one
   * of its sessions to let the session go (it does at its next write, which
   * the fence refuses, or when it ends), in ms. Default 30,000.
   */
  waitMs?: number;
}

const DEFAULT_WAIT_MS = 30_000;

/** Where a migration is. */
export interface MigrationProgress {
  /** The session just handled. */
  id: string;
  /** Whether it was copied now (`false`: the target already had it, verified). */
  copied: boolean;
  /** Sessions handled so far. */
  done: number;
  /** Sessions in all. */
  total: number;
}

/** What {@linkcode migrateSessions} did. */
export interface MigrationReport {
  /** Sessions copied and verified in this run. */
  copied: number;
  /** Sessions the target already had, verified (a resumed migration). */
  skipped: number;
  /** Sessions in the source. */
  total: number;
  /** The fence left on the source. */
  fence: MigrationFence;
}

/** A session as a migration reads it: what the list says and every entry. */
interface Snapshot {
  info: SessionInfo;
  metadata?: string;
  entries: PersistentMessage[];
  /** Entry labels, `[entryId, label]`, in storage order. */
  labels: [string, string][];
}

/**
 * Moves every session of `source` into `target`, keeping ids, names,
 * owners, working directories, creation and modification times, metadata,
 * fork parents and the whole tree (entry ids, parents, the active leaf,
 * each answer's wire).
 * First every session is read whole: one that cannot be read stops the
 * migration before anything changes, naming each such session. Then the
 * source is fenced (its writes are refused, naming the target)
 * and every write that read no fence is waited for (`drainWriters`: a turn
 * running then has its next write refused, or ends, within `waitMs`); then
 * each session, oldest first, is copied in one write and read back: its
 * message count and a SHA-256 digest of all it holds must match. A session
 * the target already holds with the same digest is skipped, so a migration
 * cut off by a crash is finished by running it again; one held with another
 * digest was not written by a migration (copies are written whole) and
 * stops it, named. Last, the fence is marked done.
 *
 * @example
 * ```ts
 * import { FileSystemJSONLStore } from "@panto/lib/jsonl";
 * import { migrateSessions } from "@panto/lib/transfer";
 * import { SQLiteStore } from "@panto/lib/sqlite";
 * const dir = await Deno.makeTempDir();
 * const source = new FileSystemJSONLStore({ dir });
 * const target = new SQLiteStore({ path: ":memory:" });
 * const report = await migrateSessions(source, target, { targetName: "sqlite::memory:" });
 * console.assert(report.total === 0 && report.fence.done);
 * await source.close();
 * await target.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @param source The store to move from (it must keep a fence: every built-in store that saves does).
 * @param target The store to move into.
 * @param options The target's name and a progress callback.
 * @returns How many sessions were copied and skipped.
 * @throws {SessionInUseError} When a turn still holds a source session after
 *   `waitMs` (the source stays fenced: run the migration again when it is idle).
 * @throws {SessionStoreError} When the source cannot be fenced, is fenced
 *   for another target or migrated already, holds sessions it cannot read
 *   (named; the source is then left unfenced, or as a cut-off run left it),
 *   a copy does not verify, or the target holds one of its ids with other
 *   content (the message names the session).
 */
export async function migrateSessions(
  source: SessionStore,
  target: SessionStore,
  options: MigrateOptions,
): Promise<MigrationReport> {
  const existing = await fenceToKeep(source, options.targetName);
  // Before the fence: a session that cannot be copied must not leave the store fenced.
  await requireReadable(source);
  const fence = existing ??
    { target: options.targetName, since: new Date().toISOString(), done: false };
  if (!existing) await source.setMigrationFence!(fence);
  await drainWriters(source, options.waitMs ?? DEFAULT_WAIT_MS);
  const infos = oldestFirst(await readableSessions(source));
  const held = new Map((await target.list()).map((info) => [info.id, info]));
  const report: MigrationReport = { copied: 0, skipped: 0, total: infos.length, fence };
  for (const info of infos) {
    const copied = await migrateOne(source, target, info, held.has(info.id));
    if (copied) report.copied++;
    else report.skipped++;
    options.onProgress?.({
      id: info.id,
      copied,
      done: report.copied + report.skipped,
      total: infos.length,
    });
  }
  report.fence = { ...fence, done: true };
  await source.setMigrationFence!(report.fence);
  return report;
}

/**
 * The fence a migration to this target already set (it is resumed), or
 * `null` when there is none yet; refuses a store that cannot be fenced, or
 * whose fence is done or names another target.
 */
async function fenceToKeep(
  source: SessionStore,
  targetName: string,
): Promise<MigrationFence | null> {
  if (!source.setMigrationFence || !source.migrationFence) {
    throw new SessionStoreError(
      "This session store cannot be fenced, so writes to it after a migration could not be " +
        "refused: migrate from a built-in store (jsonl, sqlite, postgres)",
    );
  }
  const existing = await source.migrationFence();
  if (existing?.done) {
    // The target is where sessions are written now: copying again could undo those writes.
    throw new SessionStoreError(
      `These sessions were already migrated to ${existing.target} (since ${existing.since}): ` +
        `use that store`,
    );
  }
  if (existing && existing.target !== targetName) {
    throw new SessionStoreError(
      `These sessions are being migrated to ${existing.target} (since ${existing.since}), ` +
        `not ${targetName}: finish that migration (run it again with the same target) instead`,
    );
  }
  return existing;
}

/** Sessions named in an error, the rest counted. */
const UNREADABLE_SHOWN = 5;

/**
 * Reads every session of the source whole, as the copy will: one that
 * cannot be read (listed unreadable, or damaged where the list does not
 * look) stops the migration before it changes anything, naming them all.
 */
async function requireReadable(source: SessionStore): Promise<void> {
  const bad: string[] = [];
  for (const info of await source.list()) {
    if (info.unreadable !== undefined) {
      bad.push(`${info.id} (${info.unreadable})`);
      continue;
    }
    try {
      await readSnapshot(source, info);
    } catch (error) {
      // Deleted since the list: there is nothing to copy, and nothing to fix.
      if (error instanceof SessionVanishedError) continue;
      bad.push(`${info.id} (${errorMessage(error)})`);
    }
  }
  if (bad.length === 0) return;
  const more = bad.length > UNREADABLE_SHOWN ? `, and ${bad.length - UNREADABLE_SHOWN} more` : "";
  throw new SessionStoreError(
    `Cannot migrate: ${bad.length} session(s) cannot be read: ` +
      `${bad.slice(0, UNREADABLE_SHOWN).join(", ")}${more}. Nothing was copied and the store ` +
      `is not fenced: repair them (panto sessions repair ID) or remove them ` +
      `(panto sessions rm ID), then run the migration again`,
  );
}

/**
 * Waits for the writes that read no fence to land, so the copies hold them
 * and every later write is refused; a session still held after `waitMs` is
 * named with its holder.
 */
async function drainWriters(source: SessionStore, waitMs: number): Promise<void> {
  try {
    await source.drainWriters?.(waitMs);
  } catch (error) {
    if (!(error instanceof SessionInUseError)) throw error;
    throw new SessionInUseError(
      error.id,
      error.holder,
      `its turn did not let it go within ${waitMs / 1000} s of the migration fence; ` +
        `retry the migration when it is idle (the source stays fenced, so no new turn starts there)`,
    );
  }
}

/**
 * Every session of the store; one it cannot read (made unreadable since
 * {@linkcode requireReadable} looked) stops the migration, named. The store
 * stays fenced, and lets such a session be repaired or removed.
 */
async function readableSessions(store: SessionStore): Promise<SessionInfo[]> {
  const infos = await store.list();
  const bad = infos.filter((info) => info.unreadable !== undefined);
  if (bad.length > 0) {
    const named = bad.slice(0, UNREADABLE_SHOWN).map((info) => `${info.id} (${info.unreadable})`)
      .join(", ");
    throw new SessionStoreError(
      `Cannot migrate: ${bad.length} session(s) cannot be read: ${named}; ` +
        `repair (panto sessions repair ID) or remove them (panto sessions rm ID), ` +
        `then run the migration again`,
    );
  }
  return infos;
}

/** Oldest modified first: a migration cut off has moved the sessions least likely to be resumed. */
function oldestFirst(infos: SessionInfo[]): SessionInfo[] {
  return infos.sort((a, b) => a.modified.localeCompare(b.modified) || a.id.localeCompare(b.id));
}

/**
 * Copies one session unless the target already holds it verified.
 *
 * @returns Whether it was copied.
 */
async function migrateOne(
  source: SessionStore,
  target: SessionStore,
  info: SessionInfo,
  atTarget: boolean,
): Promise<boolean> {
  const snapshot = await readSnapshot(source, info);
  const digest = await snapshotDigest(snapshot);
  let there: Snapshot | null = null;
  if (atTarget) {
    there = await readTargetSnapshot(target, info.id);
    if (there && await snapshotDigest(there) === digest) return false;
    // Labels are written after the messages: a copy cut off between them only lacks labels.
    const unlabelled = there &&
      await snapshotDigest(there, false) === await snapshotDigest(snapshot, false);
    // Copies are written whole, so this one was written there by someone else: keep it.
    if (there && !unlabelled) {
      throw new SessionStoreError(
        `Session ${info.id} is already in the target with other content (${there.entries.length} ` +
          `messages; the source has ${snapshot.entries.length}); it was not copied by a ` +
          `migration: move or delete it there, then run the migration again`,
      );
    }
  }
  if (there) await writeLabels(target, snapshot);
  else await writeSnapshot(target, snapshot);
  const copy = await readTargetSnapshot(target, info.id);
  if (!copy || copy.entries.length !== snapshot.entries.length) {
    throw new SessionStoreError(
      `Session ${info.id} did not verify after copying: the source has ` +
        `${snapshot.entries.length} messages, the target ${copy?.entries.length ?? "none"}`,
    );
  }
  if (await snapshotDigest(copy) !== digest) {
    throw new SessionStoreError(
      `Session ${info.id} did not verify after copying: its digest differs from the source's ` +
        `(the target store changed something it holds); the source is unchanged`,
    );
  }
  return true;
}

/**
 * Every entry of the session: its whole tree (ids, parents, wire) in the
 * order stored, so the copy's active leaf is the same; from a store without
 * trees, its messages.
 */
async function readSnapshot(store: SessionStore, info: SessionInfo): Promise<Snapshot> {
  const snapshot: Snapshot = { info, entries: [], labels: [] };
  if (store.loadTree) {
    const tree = await store.loadTree(info.id);
    if (!tree) throw disappeared(info.id);
    snapshot.entries = tree.entries.map(({ id, parentId, message, wire }) => ({
      ...persistent(message, wire),
      id,
      parentId,
    }));
    snapshot.labels = tree.entries.flatMap(({ id, label }) => label ? [[id, label]] : []);
    if (tree.metadata !== undefined) snapshot.metadata = tree.metadata;
    return snapshot;
  }
  const conversation = await store.load(info.id);
  if (!conversation) throw disappeared(info.id);
  // No per-message wire here: the session's (its last answer's) goes with its last answer.
  const lastAnswer = conversation.messages.findLast((message) => message.role === "assistant");
  snapshot.entries = conversation.messages.map((message) =>
    persistent(message, message === lastAnswer ? info.wire : undefined)
  );
  if (conversation.metadata !== undefined) snapshot.metadata = conversation.metadata;
  return snapshot;
}

/** A session deleted between the list and its read. */
class SessionVanishedError extends SessionStoreError {}

function disappeared(id: string): SessionStoreError {
  return new SessionVanishedError(`Session ${id} disappeared while it was being migrated`);
}

/** The session at the target with its list entry, or `null` when it has none. */
async function readTargetSnapshot(store: SessionStore, id: string): Promise<Snapshot | null> {
  const session = await store.resolve(id);
  if (session?.id !== id) return null;
  return await readSnapshot(store, session.info);
}

/** The message as an append carries it. */
function persistent(message: Message, wire: WireIdentity | undefined): PersistentMessage {
  const entry: PersistentMessage = { message, conversation: [], toolsAvailable: [] };
  if (message.usage) entry.usage = message.usage;
  if (wire) entry.wire = wire;
  return entry;
}

/** Writes the session at the target in one write (so a crash leaves all of it or nothing). */
async function writeSnapshot(store: SessionStore, snapshot: Snapshot): Promise<void> {
  const { info } = snapshot;
  const session = store.create({
    id: info.id,
    created: info.created,
    ...(info.cwd === undefined ? {} : { cwd: info.cwd }),
    ...(info.ownerId === undefined ? {} : { ownerId: info.ownerId }),
    ...(info.parentSessionId === undefined ? {} : { parentSessionId: info.parentSessionId }),
    ...(snapshot.metadata === undefined ? {} : { metadata: snapshot.metadata }),
  });
  // Before the first write, a name is kept for it: it goes in the same write.
  if (info.name) await store.rename(session.id, info.name);
  if (snapshot.entries.length > 0) {
    await store.appendMessages(session.id, snapshot.entries, {
      expectedCount: 0,
      writtenAt: info.modified,
    });
  } else if (store.replaceConversation) {
    await store.replaceConversation(session.id, [], { expectedCount: 0 });
  }
  await writeLabels(store, snapshot);
  // A session copied mid-turn (cut off by a crash) would otherwise stay held by this process.
  await store.release?.(session.id);
}

/** Labels the copy's entries as the source's are. */
async function writeLabels(store: SessionStore, snapshot: Snapshot): Promise<void> {
  if (snapshot.labels.length > 0 && !store.setLabel) {
    throw new SessionStoreError(
      `Session ${snapshot.info.id} has labelled entries, which the target store cannot keep`,
    );
  }
  for (const [entryId, label] of snapshot.labels) {
    await store.setLabel?.(snapshot.info.id, entryId, label);
  }
}

/**
 * SHA-256 of all a session holds that a migration promises to keep (not
 * its modification time, which is the copy's); its labels left out when
 * `withLabels` is false.
 */
async function snapshotDigest(snapshot: Snapshot, withLabels = true): Promise<string> {
  const { info } = snapshot;
  const kept = {
    id: info.id,
    name: info.name ?? null,
    created: info.created,
    cwd: info.cwd ?? null,
    ownerId: info.ownerId ?? null,
    parentSessionId: info.parentSessionId ?? null,
    metadata: snapshot.metadata ?? null,
    wire: info.wire ?? null,
    entries: snapshot.entries.map(({ message, wire, id, parentId }) => ({
      message,
      wire: wire ?? null,
      id: id ?? null,
      parentId: parentId ?? null,
    })),
    labels: withLabels ? snapshot.labels : [],
  };
  const bytes = new TextEncoder().encode(stringifyWellFormed(canonical(kept)));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The value with every object's keys sorted, so key order never changes a digest. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, inner]) => [key, canonical(inner)]));
}
