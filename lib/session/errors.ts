import { parseHolder } from "./lock_holder.ts";
/**
 * A session store could not do what was asked: the directory or database
 * cannot be written or reached, a session is damaged, locked or unknown.
 * Every error a built-in store throws about itself is one, so a program can
 * tell "saving failed" apart from "the model request failed". The message
 * names the store's location (credentials in a URL are redacted) and the
 * cause.
 *
 * @example
 * ```ts
 * import { SessionInUseError, SessionStoreError } from "@panto/lib";
 * const error = new SessionStoreError("Could not save the session to /s: disk full");
 * console.assert(error.message.startsWith("Could not save"));
 * console.assert(new SessionInUseError("abc", "1") instanceof SessionStoreError);
 * ```
 */
export class SessionStoreError extends Error {
  /**
   * Creates the error.
   *
   * @param message What failed, where, and why.
   * @param options The underlying error, as `cause`.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SessionStoreError";
  }
}

/**
 * A session id (or id prefix) that a store refuses: ids name files and rows,
 * so only a strict character set is accepted and nothing can escape the
 * sessions directory.
 *
 * @example
 * ```ts
 * import { InvalidSessionIdError } from "@panto/lib";
 * const error = new InvalidSessionIdError("../x");
 * console.assert(error.message.includes('"../x"'));
 * ```
 */
export class InvalidSessionIdError extends SessionStoreError {
  /** The id as given. */
  readonly id: string;

  /**
   * Creates the error.
   *
   * @param id The rejected id.
   */
  constructor(id: string) {
    super(
      `Invalid session id ${JSON.stringify(id)}: use 1-128 letters, digits, "-" or "_" ` +
        `(built-in stores name sessions by UUIDv7, e.g. 0190a5c4-7b1e-7c3d-9f00-1a2b3c4d5e6f)`,
    );
    this.name = "InvalidSessionIdError";
    this.id = id;
  }
}

/**
 * No session has this id.
 *
 * @example
 * ```ts
 * import { SessionNotFoundError } from "@panto/lib";
 * console.assert(new SessionNotFoundError("abc", "the database").id === "abc");
 * ```
 */
export class SessionNotFoundError extends SessionStoreError {
  /** The id that was looked up. */
  readonly id: string;

  /**
   * Creates the error.
   *
   * @param id The id that was looked up.
   * @param where The store's location (directory, database), for the message.
   */
  constructor(id: string, where: string) {
    super(`Session ${id} was not found in ${where}: list sessions to see the ids that exist`);
    this.name = "SessionNotFoundError";
    this.id = id;
  }
}

/**
 * A prefix matches several sessions.
 *
 * @example
 * ```ts
 * import { AmbiguousSessionIdError } from "@panto/lib";
 * const error = new AmbiguousSessionIdError("01", ["0190", "0191"]);
 * console.assert(error.candidates.length === 2);
 * ```
 */
export class AmbiguousSessionIdError extends SessionStoreError {
  /** The prefix as given. */
  readonly prefix: string;
  /** Ids that start with the prefix (the first few). */
  readonly candidates: readonly string[];

  /**
   * Creates the error.
   *
   * @param prefix The prefix as given.
   * @param candidates Matching ids (the first few are named in the message).
   * @param total How many sessions match in all, when more than `candidates`.
   */
  constructor(prefix: string, candidates: readonly string[], total = candidates.length) {
    const more = total > candidates.length ? ` and ${total - candidates.length} more` : "";
    super(
      `Session id prefix ${JSON.stringify(prefix)} is ambiguous: it matches ` +
        `${candidates.join(", ")}${more}; type more characters of the id`,
    );
    this.name = "AmbiguousSessionIdError";
    this.prefix = prefix;
    this.candidates = candidates;
  }
}

/**
 * Who holds a session for writing, as far as its lock says.
 *
 * @example
 * ```ts
 * import type { SessionHolder } from "@panto/lib";
 * const holder: SessionHolder = { pid: 4242, since: "2026-01-01T00:00:00.000Z" };
 * console.assert(holder.pid === 4242);
 * ```
 */
export interface SessionHolder {
  /** The holder's process id, when known. */
  pid?: number;
  /** When it took the session (ISO 8601), when known. */
  since?: string;
}

/**
 * Another process, or another store or agent in this one, is writing the
 * session. The message names the holder and since when it holds it.
 *
 * @example
 * ```ts
 * import { SessionInUseError } from "@panto/lib";
 * console.assert(new SessionInUseError("abc", "4242").message.includes("pid 4242"));
 * ```
 */
export class SessionInUseError extends SessionStoreError {
  /** The session id. */
  readonly id: string;
  /** Who holds it. */
  readonly holder: SessionHolder;

  /**
   * Creates the error.
   *
   * @param id The session id.
   * @param holder The holder, or what its lock file says (a pid, or `""`).
   * @param advice What to do instead, when not the usual (close the holder, or start a new session).
   */
  constructor(id: string, holder: SessionHolder | string, advice?: string) {
    const known = typeof holder === "string" ? parseHolder(holder) : holder;
    const since = known.since ? ` since ${known.since}` : "";
    const inProcess = known.pid === Deno.pid;
    const who = inProcess
      ? "this process (another store or agent writes it)"
      : `another process (pid ${known.pid ?? "unknown"})`;
    const usual = inProcess
      ? "close that store first, or start a new session"
      : "finish or close that session first, or start a new one";
    super(`Session ${id} is in use by ${who}${since}: ${advice ?? usual}`);
    this.name = "SessionInUseError";
    this.id = id;
    this.holder = known;
  }
}

/**
 * Another writer appended to the session since this one loaded it (or last
 * wrote it): appending on top would mix two conversations, so the append is
 * refused. Load the session again to continue from what is stored.
 *
 * @example
 * ```ts
 * import { SessionChangedError } from "@panto/lib";
 * console.assert(new SessionChangedError("abc", 4, 6).message.includes("6 messages"));
 * ```
 */
export class SessionChangedError extends SessionStoreError {
  /** The session id. */
  readonly id: string;

  /**
   * Creates the error.
   *
   * @param id The session id.
   * @param expected Messages the writer knew of.
   * @param found Messages stored.
   */
  constructor(id: string, expected: number, found: number) {
    super(
      `Session ${id} was changed by another writer since it was loaded (it has ${found} messages, ` +
        `this one knew ${expected}): resume it again to continue from what is stored`,
    );
    this.name = "SessionChangedError";
    this.id = id;
  }
}

/**
 * A stored session could not be read back. Stores fail closed: a damaged
 * transcript is never returned as a shorter or empty one.
 *
 * @example
 * ```ts
 * import { SessionCorruptError } from "@panto/lib";
 * const error = new SessionCorruptError("/s/a.jsonl", 7, "invalid JSON");
 * console.assert(error.message.includes("/s/a.jsonl:7"));
 * ```
 */
export class SessionCorruptError extends SessionStoreError {
  /** The file, database or table holding the damaged record. */
  readonly location: string;
  /** 1-based line (JSONL) or record number of the damage. */
  readonly line: number;
  /** What is wrong with the record, and how to fix it when known (no location). */
  readonly reason: string;

  /**
   * Creates the error.
   *
   * @param location The file or database.
   * @param line 1-based line or record number.
   * @param reason What is wrong with it.
   * @param hint How to fix it.
   */
  constructor(location: string, line: number, reason: string, hint = "") {
    super(`Session record ${location}:${line} is corrupt: ${reason}${hint ? `; ${hint}` : ""}`);
    this.name = "SessionCorruptError";
    this.location = location;
    this.line = line;
    this.reason = `${reason}${hint ? `: ${hint}` : ""}`;
  }
}

/**
 * A file given to import is not a session panto can read: a line is not
 * JSON or not the entry it claims to be (`line` > 0), or the file as a
 * whole is of no format panto knows (`line` 0).
 *
 * @example
 * ```ts
 * import { SessionImportError } from "@panto/lib";
 * const error = new SessionImportError("/tmp/a.jsonl", 3, "invalid JSON");
 * console.assert(error.message.includes("/tmp/a.jsonl:3"));
 * ```
 */
export class SessionImportError extends SessionStoreError {
  /** The file. */
  readonly path: string;
  /** The 1-based line at fault, 0 for the whole file. */
  readonly line: number;

  /**
   * Creates the error.
   *
   * @param path The file.
   * @param line The 1-based line at fault (0: the whole file).
   * @param reason What is wrong, and how to fix it when known.
   */
  constructor(path: string, line: number, reason: string) {
    super(`Cannot import ${line > 0 ? `${path}:${line}` : path}: ${reason}`);
    this.name = "SessionImportError";
    this.path = path;
    this.line = line;
  }
}
