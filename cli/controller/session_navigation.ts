import {
  type Agent,
  type BranchSummary,
  Conversation,
  type Session,
  type SessionStore,
} from "@panto/lib";
import { UsageError } from "../shared/errors.ts";
import { abandonedEntries } from "./abandoned_branch.ts";
import { danglingPrompt } from "./dangling_prompt.ts";
import { forkEntries } from "./fork_entries.ts";
import { entryOfMessage } from "./fork_point.ts";
import type { TypedPrompt } from "./typed_prompt.ts";

/** Options for `SessionController.branch`. */
export interface BranchOptions {
  /** Summarise the branch left; the summary goes with the next prompt. */
  summarise?: boolean;
  /** What the summary should keep. */
  instructions?: string;
}

/** Where a move in or between sessions lands: what the controller adopts. */
export interface Destination {
  session: Session;
  /** The conversation to go on from. */
  conversation: Conversation;
  /** The unanswered prompt there, offered for editing. */
  dangling: TypedPrompt | undefined;
}

/** What the controller's current session is, and where it lives. */
export interface Whereabouts {
  store: SessionStore;
  /** The current agent (its session, conversation and tools). */
  agent: Agent;
  cwd: string;
}

/**
 * A session loaded to be made current.
 *
 * @param session The session.
 * @returns It with its conversation and unanswered prompt.
 */
export async function destinationOf(session: Session): Promise<Destination> {
  const { conversation, danglingUser } = await session.loadWithDangling();
  return { session, conversation, dangling: danglingPrompt(danglingUser) };
}

/**
 * A saved session by its id.
 *
 * @param store The store.
 * @param id Its id or a unique prefix.
 * @returns The session.
 * @throws {UsageError} When no session matches.
 */
export async function sessionById(store: SessionStore, id: string): Promise<Session> {
  const session = await store.resolve(id);
  if (session) return session;
  throw new UsageError(
    `No session matches ${JSON.stringify(id)}: list them with listSessions (or \`panto sessions\`)`,
  );
}

/**
 * The conversation up to (not including) a message, copied into a new
 * session that records the current one as its parent. A saved session is
 * forked by its store (`store.fork`, entry ids kept).
 *
 * @param where The current session.
 * @param atMessageIndex How many messages to keep (default: all).
 * @returns The new session.
 * @throws {UsageError} For an index outside 0…message count.
 */
export async function forkedConversation(
  where: Whereabouts,
  atMessageIndex: number | undefined,
): Promise<Destination> {
  const { agent, store } = where;
  const source = agent.conversation;
  const end = atMessageIndex ?? source.messages.length;
  if (!Number.isInteger(end) || end < 0 || end > source.messages.length) {
    throw new UsageError(
      `Cannot fork at message ${end}: use a whole number from 0 to ${source.messages.length}`,
    );
  }
  const stored = await storeFork(where, end);
  if (stored) return await destinationOf(stored);
  const messages = source.messages.slice(0, end);
  const session = store.create({
    cwd: where.cwd,
    ...(source.metadata === undefined ? {} : { metadata: source.metadata }),
    ...(agent.session.persisted ? { parentSessionId: agent.session.id } : {}),
  });
  const toolsAvailable = agent.tools.map((tool) => tool.decl);
  await session.append(forkEntries(messages, toolsAvailable, agent.session.info.wire));
  // Adopted as copied: a store that keeps nothing (--no-session) could not give it back.
  const conversation = new Conversation(structuredClone(messages), source.metadata);
  return { session, conversation, dangling: undefined };
}

/** A saved session's fork at its `end`th message, made by its store; `null` when it cannot. */
async function storeFork({ store, agent }: Whereabouts, end: number): Promise<Session | null> {
  const session = agent.session;
  if (!store.fork || !store.loadTree || !session.persisted || end === 0) return null;
  const [{ path }, stored] = await Promise.all([session.tree(), store.loadTree(session.id)]);
  const byId = new Map(stored?.entries.map((entry) => [entry.id, entry]));
  const entries = path.flatMap((id) => byId.get(id) ?? []);
  const entryId = entryOfMessage(entries, agent.conversation.messages, end);
  return entryId === undefined ? null : await store.fork(session.id, entryId);
}

/**
 * The saved session forked at an entry of its tree (any branch).
 *
 * @param store The store.
 * @param session The current session.
 * @param entryId An entry of its tree.
 * @returns The new session.
 * @throws {UsageError} When the session is not saved yet or its store cannot fork.
 */
export async function forkedAtEntry(
  store: SessionStore,
  session: Session,
  entryId: string,
): Promise<Session> {
  if (!store.fork || !session.persisted) {
    throw new UsageError(
      "Only a saved session can be forked at an entry: fork the whole conversation instead",
    );
  }
  return await store.fork(session.id, entryId);
}

/** Where a move in the session tree lands, and the summary of the branch it left. */
export interface BranchMove {
  destination: Destination;
  summary: BranchSummary | undefined;
}

/**
 * Moves the current session's active leaf to an entry (a chosen prompt:
 * to just before it, offering it for editing), with the summary of the
 * branch left when asked; when the summary fails the leaf goes back.
 *
 * @param where The current session.
 * @param entryId The entry, or `null` for a new root.
 * @param options Whether to summarise the branch left, with what instructions.
 * @param signal Aborts the summary.
 * @returns The session on its new branch, and the summary.
 */
export async function branchMove(
  where: Whereabouts,
  entryId: string | null,
  options: BranchOptions,
  signal: AbortSignal,
): Promise<BranchMove> {
  const session = where.agent.session;
  // Only a summary needs to know where the move starts from.
  const from = options.summarise ? (await session.tree()).leafId : null;
  let to = entryId;
  let loaded = await session.branchFrom(to);
  const prompt = danglingPrompt(loaded.danglingUser);
  if (prompt !== undefined) {
    const { path } = await session.tree();
    to = path.at(-2) ?? null;
    loaded = await session.branchFrom(to);
  }
  let summary: BranchSummary | undefined;
  if (options.summarise) {
    try {
      summary = await summariseLeft(where, from, to, signal, options.instructions);
    } catch (error) {
      await session.branchFrom(from);
      throw error;
    }
  }
  return { destination: { session, conversation: loaded.conversation, dangling: prompt }, summary };
}

/** The model's summary of what moving from leaf `from` to leaf `to` leaves behind, if anything. */
async function summariseLeft(
  { store, agent }: Whereabouts,
  from: string | null,
  to: string | null,
  signal: AbortSignal,
  instructions: string | undefined,
): Promise<BranchSummary | undefined> {
  const stored = await store.loadTree?.(agent.session.id);
  if (!stored) return undefined;
  const left = abandonedEntries(stored.entries, from, to).map((entry) => entry.message);
  if (left.length === 0) return undefined;
  return await agent.summariseBranch(left, {
    signal,
    ...(instructions === undefined ? {} : { instructions }),
  });
}
