import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How to run a stdio MCP server. */
export interface StdioServerCommand {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /**
   * Variables set for it on top of panto's environment, which it inherits:
   * the user's, less the key variables withheld at start.
   */
  env: Record<string, string>;
  /** Its working directory. */
  cwd: string;
  /** Receives what it writes to stderr. */
  onStderr: (chunk: Uint8Array) => void;
}

/**
 * How long a stopping server's process group gets to exit after its stdin
 * closes, then after SIGTERM, before SIGKILL (ms): a server that ignores both
 * is gone about 1 s after panto stops it.
 */
const STDIN_GRACE_MS = 500;
const TERM_GRACE_MS = 500;
/** How often a stopping server's process group is looked at (ms). */
const GROUP_POLL_MS = 25;

/**
 * The process groups of the servers not stopped yet. `unload` runs on every
 * `Deno.exit`, also those that skip closing the servers (a second ctrl+c):
 * whatever is left of these groups is killed then.
 */
const runningGroups = new Set<number>();
globalThis.addEventListener("unload", () => {
  for (const pid of runningGroups) signalGroup(pid, "SIGKILL");
});

/**
 * The client side of MCP's stdio transport on `Deno.Command`: the server's
 * environment is panto's plus `env` (the SDK's own transport passes only a
 * few variables it picks, so a server would miss the user's others). The
 * server runs in its own session and process group, so stopping it reaches
 * whatever it started (a wrapper script's child included): its stdin is
 * closed, then its group gets SIGTERM, then SIGKILL. Closing never waits for
 * the pipes once the group is gone (a process that left it may hold them).
 *
 * @example
 * ```ts ignore
 * import { DenoStdioTransport } from "./stdio_transport.ts";
 * const transport = new DenoStdioTransport({
 *   command: "mcp-git", args: [], env: { GIT_AUTHOR_NAME: "Ada" }, cwd: Deno.cwd(), onStderr: () => {},
 * });
 * await transport.start();
 * await transport.close();
 * ```
 */
export class DenoStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #command: StdioServerCommand;
  #child: Deno.ChildProcess | undefined;
  #stdin: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  #done: Promise<unknown> = Promise.resolve();
  #stopping: Promise<void> | undefined;

  constructor(command: StdioServerCommand) {
    this.#command = command;
  }

  start(): Promise<void> {
    const { command, args, env, cwd } = this.#command;
    const child = new Deno.Command(command, {
      args,
      env,
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      // Its own session and process group, so signalling the group reaches its children.
      detached: true,
    }).spawn();
    this.#child = child;
    runningGroups.add(child.pid);
    this.#stdin = child.stdin.getWriter();
    const stdout = child.stdout.getReader();
    const stderr = child.stderr.getReader();
    this.#readers = [stdout, stderr];
    this.#done = Promise.all([
      this.#readMessages(stdout),
      this.#readStderr(stderr),
      child.status,
    ]).finally(async () => {
      // A server that ended by itself may leave processes it started: they go too.
      await this.#stop(child);
      this.#child = undefined;
      this.onclose?.();
    });
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#stdin) throw new Error("the MCP server is not running");
    await this.#stdin.write(new TextEncoder().encode(serializeMessage(message)));
  }

  /** Stops the server and its process group (see the class), waiting at most about 1 s. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child) await this.#stop(child);
    await this.#done.catch(() => {});
  }

  /** Closes the server's stdin, stops its process group, then stops reading its pipes (once). */
  #stop(child: Deno.ChildProcess): Promise<void> {
    this.#stopping ??= (async () => {
      const stdin = this.#stdin;
      this.#stdin = undefined;
      // Not awaited: a server that does not read its stdin would hold the close up.
      stdin?.close().catch(() => {});
      await stopGroup(child.pid);
      runningGroups.delete(child.pid);
      // A process that left the group (setsid) may hold the pipes open forever.
      await Promise.all(this.#readers.map((reader) => reader.cancel().catch(() => {})));
    })();
    return this.#stopping;
  }

  /**
   * Reads newline-delimited messages. Only each new chunk is searched for a
   * line end, and a long line's pieces are joined once, when it ends:
   * searching the whole growing text at every chunk cost time and memory
   * that grew with the square of a large result (50 MB took 750 MB).
   */
  async #readMessages(stdout: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pieces: string[] = [];
    for (let read = await stdout.read(); !read.done; read = await stdout.read()) {
      const text = decoder.decode(read.value, { stream: true });
      let start = 0;
      for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
        pieces.push(text.slice(start, end));
        this.#deliver(pieces.join("").replace(/\r$/, ""));
        pieces = [];
        start = end + 1;
      }
      if (start < text.length) pieces.push(text.slice(start));
    }
  }

  #deliver(line: string): void {
    if (line.trim() === "") return;
    try {
      this.onmessage?.(deserializeMessage(line));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  async #readStderr(stderr: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    for (let read = await stderr.read(); !read.done; read = await stderr.read()) {
      this.#command.onStderr(read.value);
    }
  }
}

/** Waits for process group `pid` to empty: stdin's end, then SIGTERM, then SIGKILL. */
async function stopGroup(pid: number): Promise<void> {
  if (await groupEndsWithin(pid, STDIN_GRACE_MS)) return;
  signalGroup(pid, "SIGTERM");
  if (await groupEndsWithin(pid, TERM_GRACE_MS)) return;
  signalGroup(pid, "SIGKILL");
}

/** Whether process group `pid` is empty now or within `ms`. */
async function groupEndsWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupExists(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
  }
  return true;
}

function groupExists(pid: number): boolean {
  try {
    Deno.kill(-pid, 0);
    return true;
  } catch (error) {
    // ESRCH: no process left in it. Anything else (EPERM) means someone is. Zombies count:
    // where init does not reap orphans, stopping such a group takes the whole graces.
    return !(error instanceof Deno.errors.NotFound);
  }
}

function signalGroup(pid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
