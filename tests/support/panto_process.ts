/**
 * The installed `panto` command as a process the fault suite watches: its
 * JSON events as they come, signals as a terminal or `kill` sends them, the
 * program's process (the launcher's child) and its peak memory from
 * `/proc` (Linux).
 *
 * @module
 */
import { childEnv } from "./child_env.ts";

/** One line of `--mode json` output, parsed. */
export interface JsonEvent {
  /** The event's type, e.g. `tool_dispatch_start`. */
  type: string;
  /** The call of a tool event. */
  call?: { name?: string; id?: string };
  /** Whether a tool result is an error (`tool_dispatch_complete`). */
  isError?: boolean;
  /** The result of `tool_dispatch_complete`. */
  result?: unknown;
}

/** Options for {@linkcode startPanto}. */
export interface StartPantoOptions {
  /** The working directory (the project). */
  project: string;
  /** `HOME` and `PANTO_HOME`. */
  home: string;
  /** Run under `/usr/bin/time -f %M -o FILE`: the largest resident set (KB) of the tree. */
  timeFile?: string;
}

/** A started `panto`. */
export class PantoProcess {
  /** The process started: the launcher, or `/usr/bin/time` around it; leader of its own group. */
  readonly child: Deno.ChildProcess;
  /** Every event printed so far. */
  readonly events: JsonEvent[] = [];
  /** stdout's lines that are not JSON. */
  readonly otherLines: string[] = [];
  /** All of stderr, once the process closed it. */
  readonly stderr: Promise<string>;
  /** Resolves when stdout is closed. */
  readonly stdoutClosed: Promise<void>;
  #waiters: (() => void)[] = [];
  #closed = false;

  constructor(child: Deno.ChildProcess) {
    this.child = child;
    this.stderr = new Response(child.stderr).text();
    this.stdoutClosed = this.#read(child.stdout);
  }

  /** The pid of the process started (the group's leader). */
  get pid(): number {
    return this.child.pid;
  }

  async #read(stdout: ReadableStream<Uint8Array>): Promise<void> {
    let rest = "";
    const decoder = new TextDecoder();
    const take = (line: string) => {
      if (line === "") return;
      try {
        this.events.push(JSON.parse(line) as JsonEvent);
      } catch {
        this.otherLines.push(line);
      }
    };
    try {
      for await (const chunk of stdout) {
        const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
        rest = lines.pop() ?? "";
        lines.forEach(take);
        this.#wake();
      }
      take(rest);
    } finally {
      this.#closed = true;
      this.#wake();
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Waits until an event satisfies `match`; throws when stdout closes first
   * or after `timeoutMs`.
   *
   * @param what What is awaited, for the error.
   * @param match The test.
   * @param timeoutMs The longest wait.
   * @returns The event.
   */
  async waitForEvent(
    what: string,
    match: (event: JsonEvent) => boolean,
    timeoutMs = 60_000,
  ): Promise<JsonEvent> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const found = this.events.find(match);
      if (found) return found;
      if (this.#closed) {
        throw new Error(`panto's output ended before ${what}: ${this.summary()}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`no ${what} within ${timeoutMs} ms: ${this.summary()}`);
      }
      const { promise, resolve } = Promise.withResolvers<void>();
      this.#waiters.push(resolve);
      const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      await promise;
      clearTimeout(timer);
    }
  }

  /** The event types seen so far, for errors. */
  summary(): string {
    return this.events.map((e) => e.call?.name ? `${e.type}(${e.call.name})` : e.type).join(" ")
      .slice(-2000) + (this.otherLines.length ? ` | other: ${this.otherLines.join("\n")}` : "");
  }

  /**
   * Waits for the exit; sends SIGKILL to the whole group and throws when it
   * is still running after `ms`.
   *
   * @param ms The longest wait.
   * @param what What the exit follows, for the error.
   * @returns The status.
   */
  async exitWithin(ms: number, what: string): Promise<Deno.CommandStatus> {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(this.pid, "SIGKILL");
    }, ms);
    try {
      const status = await this.child.status;
      if (timedOut) throw new Error(`panto still ran ${ms} ms after ${what}: ${this.summary()}`);
      return status;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills whatever is left of the group and waits for the streams (for `finally`). */
  async dispose(): Promise<void> {
    killGroup(this.pid, "SIGKILL");
    await this.child.status;
    await this.stdoutClosed.catch(() => {});
    await this.stderr.catch(() => "");
  }
}

/** Sends `signal` to every process of the group led by `pid`; nothing if it is gone. */
export function killGroup(pid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pid, signal);
  } catch {
    // The group is gone.
  }
}

/**
 * Starts the installed `panto` with `args` in its own session and process
 * group (as a terminal's foreground job: SIGINT to the group reaches the
 * launcher and the program, as ctrl+c does), stdin closed, stdout and
 * stderr piped (and read as they come).
 *
 * @param panto The installed command.
 * @param args Its arguments.
 * @param options Project, home, `/usr/bin/time`.
 * @returns The process.
 */
export function startPanto(
  panto: string,
  args: readonly string[],
  options: StartPantoOptions,
): PantoProcess {
  const command = options.timeFile === undefined
    ? [panto, ...args]
    : ["/usr/bin/time", "-f", "%M", "-o", options.timeFile, panto, ...args];
  const child = new Deno.Command(command[0]!, {
    args: command.slice(1),
    cwd: options.project,
    clearEnv: true,
    env: { ...childEnv(options.home), PANTO_HOME: options.home, NO_COLOR: "1" },
    detached: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return new PantoProcess(child);
}

/**
 * The pids of `pid`'s children (every thread's), from `/proc`.
 *
 * @param pid The parent.
 * @returns Its children; none when it is gone.
 */
export async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  try {
    for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
      const text = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/children`)
        .catch(() => "");
      children.push(...text.split(" ").filter((word) => word.trim() !== "").map(Number));
    }
  } catch {
    // Gone.
  }
  return children;
}

/** The command line of `pid`, arguments joined by spaces ("" when gone). */
async function commandLine(pid: number): Promise<string> {
  const raw = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch(() => "");
  return raw.replaceAll("\0", " ");
}

/**
 * The program's process below `pid` (the launcher, or a process above it):
 * the first descendant running `cli/main.ts` (or the bundle's
 * `panto_main.js`). Waits for it up to `timeoutMs`.
 *
 * @param pid Where to look below.
 * @param timeoutMs The longest wait.
 * @returns Its pid, or undefined when it never showed (or already exited).
 */
export async function programPid(pid: number, timeoutMs = 30_000): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const queue = [pid];
    while (queue.length > 0) {
      const next = queue.shift()!;
      const line = await commandLine(next);
      if (next !== pid && /cli\/main\.ts|panto_main\.js/.test(line)) return next;
      queue.push(...await childrenOf(next));
    }
    if (!await Deno.stat(`/proc/${pid}`).then(() => true, () => false)) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return undefined;
}

/**
 * A process's peak resident set so far (`VmHWM`, KB), or undefined once it
 * is gone (or a zombie).
 *
 * @param pid The process.
 */
export async function peakRssKb(pid: number): Promise<number | undefined> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`).catch(() => "");
  const match = status.match(/^VmHWM:\s+(\d+) kB$/m);
  return match ? Number(match[1]) : undefined;
}

/**
 * Reads `pid`'s `VmHWM` every few milliseconds until it is gone; the last
 * figure read (a high-water mark: only growth after the last read is missed).
 *
 * @param pid The process.
 * @returns The peak in KB (0 when never read).
 */
export async function watchPeakRss(pid: number): Promise<number> {
  let peak = 0;
  while (true) {
    const now = await peakRssKb(pid);
    if (now === undefined) return peak;
    peak = Math.max(peak, now);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
