import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How to run a stdio MCP server. */
export interface StdioServerCommand {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Its whole environment (nothing of panto's is inherited). */
  env: Record<string, string>;
  /** Its working directory. */
  cwd: string;
  /** Receives what it writes to stderr. */
  onStderr: (chunk: Uint8Array) => void;
}

/** How long a server gets to exit after its stdin closes, then after SIGTERM (ms). */
const EXIT_GRACE_MS = 2000;

/**
 * The client side of MCP's stdio transport on `Deno.Command`: the server's
 * environment is exactly `env` (the SDK's own transport adds panto's), and
 * closing waits for the process, so nothing is left running or pending.
 */
export class DenoStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #command: StdioServerCommand;
  #child: Deno.ChildProcess | undefined;
  #stdin: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #done: Promise<unknown> = Promise.resolve();
  #closing = false;

  constructor(command: StdioServerCommand) {
    this.#command = command;
  }

  start(): Promise<void> {
    const { command, args, env, cwd } = this.#command;
    const child = new Deno.Command(command, {
      args,
      env,
      clearEnv: true,
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#stdin = child.stdin.getWriter();
    this.#done = Promise.all([
      this.#readMessages(child.stdout),
      this.#readStderr(child.stderr),
      child.status,
    ]).finally(async () => {
      this.#child = undefined;
      await this.#closeStdin();
      this.onclose?.();
    });
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#stdin) throw new Error("the MCP server is not running");
    await this.#stdin.write(new TextEncoder().encode(serializeMessage(message)));
  }

  /** Closes its stdin, then stops it (SIGTERM, then SIGKILL) if it does not exit. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#closing) return void await this.#done.catch(() => {});
    this.#closing = true;
    await this.#closeStdin();
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (await exitsWithin(child, EXIT_GRACE_MS)) break;
      try {
        child.kill(signal);
      } catch {
        // It exited meanwhile.
      }
    }
    await this.#done.catch(() => {});
  }

  /** Closes the server's stdin once (it may have exited already). */
  async #closeStdin(): Promise<void> {
    const stdin = this.#stdin;
    this.#stdin = undefined;
    await stdin?.close().catch(() => {});
  }

  async #readMessages(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, end).replace(/\r$/, "");
        buffered = buffered.slice(end + 1);
        if (line.trim() === "") continue;
        try {
          this.onmessage?.(deserializeMessage(line));
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
  }

  async #readStderr(stderr: ReadableStream<Uint8Array>): Promise<void> {
    for await (const chunk of stderr) this.#command.onStderr(chunk);
  }
}

/** Whether `child` exits within `ms` (the timer is always cleared). */
async function exitsWithin(child: Deno.ChildProcess, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([child.status.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
