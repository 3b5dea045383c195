/**
 * Drives `panto --mode rpc` as a real subprocess: writes command lines to
 * its stdin, reads every record it writes to stdout.
 */
import assert from "node:assert/strict";
import { childEnv } from "../../support/child_env.ts";

const MAIN = new URL("../../../cli/main.ts", import.meta.url).pathname;
const encoder = new TextEncoder();

/** One record panto wrote: a response or an event. */
// deno-lint-ignore no-explicit-any
export type RpcRecord = Record<string, any>;

/** Options for {@linkcode RpcClient.start}. */
export interface RpcClientOptions {
  /** panto's home (with a config). */
  home: string;
  /** Working directory. */
  cwd: string;
  /** More command-line arguments after `--mode rpc`. */
  args?: readonly string[];
  /** More environment variables. */
  env?: Record<string, string>;
}

/** A running `panto --mode rpc`. */
export class RpcClient {
  /** Every record read so far, in order. */
  readonly records: RpcRecord[] = [];
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pump: Promise<void>;
  readonly #stderr: Promise<string>;
  #waiters = new Set<() => void>();
  #ended = false;
  /** Records before this index were consumed by {@linkcode RpcClient.next}. */
  #cursor = 0;
  #nextId = 1;
  #stopReading: () => Promise<void> = () => Promise.resolve();
  #outputClosed = false;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#stdin = child.stdin.getWriter();
    this.#pump = this.#read(child.stdout);
    this.#stderr = new Response(child.stderr).text();
  }

  /**
   * Starts `deno run -A cli/main.ts --mode rpc …` with a clean environment.
   *
   * @param options Home, working directory, extra arguments.
   * @returns The client.
   */
  static start(options: RpcClientOptions): RpcClient {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", MAIN, "--mode", "rpc", ...(options.args ?? [])],
      cwd: options.cwd,
      clearEnv: true,
      env: { ...childEnv(options.home), PANTO_HOME: options.home, NO_COLOR: "1", ...options.env },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new RpcClient(child);
  }

  /** Writes text to panto's stdin as is. */
  async writeRaw(text: string): Promise<void> {
    await this.#stdin.write(encoder.encode(text));
  }

  /** Writes one command line. */
  async send(command: RpcRecord): Promise<void> {
    await this.writeRaw(JSON.stringify(command) + "\n");
  }

  /**
   * Sends a command with a fresh id and waits for its response (events
   * before it stay unconsumed for {@linkcode RpcClient.next}).
   */
  async request(command: RpcRecord, timeoutMs = 20_000): Promise<RpcRecord> {
    const id = `req-${this.#nextId++}`;
    const from = this.records.length;
    await this.send({ ...command, id });
    const { record } = await this.#find(
      (r) => r.type === "response" && r.id === id,
      from,
      timeoutMs,
      `the response to ${JSON.stringify(command).slice(0, 200)}`,
    );
    return record;
  }

  /** Sends a command that must succeed; returns its `data`. */
  async ok(command: RpcRecord): Promise<RpcRecord | undefined> {
    const response = await this.request(command);
    assert.equal(response.success, true, `${command.type} failed: ${response.error}`);
    return response.data;
  }

  /**
   * The next record after the last one returned that matches; records
   * skipped on the way are consumed.
   */
  async next(
    match: (record: RpcRecord) => boolean,
    what: string,
    timeoutMs = 20_000,
  ): Promise<RpcRecord> {
    const { record, index } = await this.#find(match, this.#cursor, timeoutMs, what);
    this.#cursor = index + 1;
    return record;
  }

  /** The next event of `type` (see {@linkcode RpcClient.next}). */
  async nextEvent(type: string, timeoutMs?: number): Promise<RpcRecord> {
    return await this.next((r) => r.type === type, `a ${type} event`, timeoutMs);
  }

  /** Records consumed so far by {@linkcode RpcClient.next}, from `start`. */
  consumed(start = 0): RpcRecord[] {
    return this.records.slice(start, this.#cursor);
  }

  /** Where the next {@linkcode RpcClient.next} starts. */
  get cursor(): number {
    return this.#cursor;
  }

  /** Closes panto's stdin (end of input). */
  async closeInput(): Promise<void> {
    await this.#stdin.close();
  }

  /** Closes the reading end of panto's stdout, as a client that went away. */
  async closeOutput(): Promise<void> {
    this.#outputClosed = true;
    await this.#stopReading();
  }

  /** Sends a signal to panto. */
  kill(signal: Deno.Signal): void {
    this.#child.kill(signal);
  }

  /**
   * Waits for panto to exit (killing it after `timeoutMs`) and returns the
   * exit code and stderr.
   */
  async exit(timeoutMs = 20_000): Promise<{ code: number; stderr: string }> {
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), timeoutMs);
    try {
      const status = await this.#child.status;
      await this.#pump;
      assert.notEqual(status.signal, "SIGKILL", `panto still running after ${timeoutMs} ms`);
      return { code: status.code, stderr: await this.#stderr };
    } finally {
      clearTimeout(timer);
      await this.#stdin.close().catch(() => {});
    }
  }

  async #find(
    match: (record: RpcRecord) => boolean,
    from: number,
    timeoutMs: number,
    what: string,
  ): Promise<{ record: RpcRecord; index: number }> {
    const deadline = Date.now() + timeoutMs;
    for (let index = from;;) {
      for (; index < this.records.length; index++) {
        const record = this.records[index]!;
        if (match(record)) return { record, index };
      }
      if (this.#ended) {
        const stderr = await this.#stderr;
        throw new Error(`stdout ended before ${what}; stderr: ${stderr}\nread:\n${this.#tail()}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms; read:\n${this.#tail()}`);
      await this.#changed(left);
    }
  }

  #tail(): string {
    return this.records.slice(-15).map((r) => JSON.stringify(r).slice(0, 300)).join("\n");
  }

  #changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
    });
  }

  async #read(stdout: ReadableStream<Uint8Array>): Promise<void> {
    let rest = "";
    const decoder = new TextDecoder();
    const reader = stdout.getReader();
    this.#stopReading = () => reader.cancel();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const lines = (rest + decoder.decode(value, { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) this.records.push(JSON.parse(line));
      for (const wake of [...this.#waiters]) wake();
    }
    if (!this.#outputClosed) assert.equal(rest, "", "the last record ends with a newline");
    this.#ended = true;
    for (const wake of [...this.#waiters]) wake();
  }
}
