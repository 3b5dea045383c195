/**
 * A program running in a real pty: a private tmux server (its own socket),
 * driven with send-keys and read with capture-pane.
 */
import { fileURLToPath } from "node:url";
import { childEnv } from "./child_env.ts";
import { commandRuns } from "./command_runs.ts";

/** Whether tmux can be run here (tests print why they skip when not). */
export const tmuxAvailable: boolean = await commandRuns("tmux", ["-V"]);

const decoder = new TextDecoder();

/** Options for {@linkcode TmuxSession.start}. */
export interface TmuxStartOptions {
  /** Columns (default 100). */
  cols?: number;
  /** Rows (default 30). */
  rows?: number;
  /** Working directory of the pane. */
  cwd?: string;
  /** Environment variables for the pane's command. */
  env?: Record<string, string>;
}

/** One tmux server with one pane running a shell command. */
export class TmuxSession {
  readonly socket: string;

  private constructor(socket: string) {
    this.socket = socket;
  }

  /** Starts `command` (run by `sh -c`) in a detached session. */
  static async start(command: string, options: TmuxStartOptions = {}): Promise<TmuxSession> {
    const session = new TmuxSession(`panto-test-${crypto.randomUUID().slice(0, 8)}`);
    const env = Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${shellQuote(v)}`).join(
      " ",
    );
    // history-limit only applies to windows created after it is set.
    await session.tmux(
      "start-server",
      ";",
      "set-option",
      "-g",
      "history-limit",
      "50000",
      ";",
      "new-session",
      "-d",
      "-x",
      String(options.cols ?? 100),
      "-y",
      String(options.rows ?? 30),
      ...(options.cwd ? ["-c", options.cwd] : []),
      `env ${env} sh -c ${shellQuote(command)}`,
    );
    return session;
  }

  /** Runs a tmux command against this server. */
  async tmux(...args: string[]): Promise<string> {
    const { success, stdout, stderr } = await new Deno.Command("tmux", {
      args: ["-L", this.socket, ...args],
    }).output();
    if (!success) throw new Error(`tmux ${args.join(" ")} failed: ${decoder.decode(stderr)}`);
    return decoder.decode(stdout);
  }

  /** Types literal text. */
  async type(text: string): Promise<void> {
    await this.tmux("send-keys", "-t", "0", "-l", text);
  }

  /** Sends key names (`Enter`, `Escape`, `C-c`, `C-o`…). */
  async keys(...keys: string[]): Promise<void> {
    await this.tmux("send-keys", "-t", "0", ...keys);
  }

  /** The visible screen, one string per row, trailing spaces trimmed. */
  async screen(): Promise<string[]> {
    return (await this.tmux("capture-pane", "-p", "-t", "0")).split("\n").map((l) => l.trimEnd());
  }

  /** Scrollback and screen together. */
  async history(): Promise<string[]> {
    return (await this.tmux("capture-pane", "-p", "-S", "-", "-t", "0")).split("\n").map((l) =>
      l.trimEnd()
    );
  }

  /**
   * Reads the pane every 100 ms until `done` says so or the deadline
   * passes; the last reading, and whether `done` was met.
   */
  async #poll(
    read: () => Promise<string[]>,
    done: (lines: string[], text: string) => boolean,
    timeoutMs = 20_000,
  ): Promise<{ last: string[]; met: boolean }> {
    const deadline = Date.now() + timeoutMs;
    let last: string[] = [];
    while (Date.now() < deadline) {
      last = await read();
      if (done(last, last.join("\n"))) return { last, met: true };
      await new Promise((r) => setTimeout(r, 100));
    }
    return { last, met: false };
  }

  /** Waits until the screen (or, with `inHistory`, the whole history) matches. */
  async waitFor(
    pattern: RegExp,
    options: { timeoutMs?: number; inHistory?: boolean } = {},
  ): Promise<string[]> {
    const read = () => options.inHistory ? this.history() : this.screen();
    const { last, met } = await this.#poll(
      read,
      (_, text) => pattern.test(text),
      options.timeoutMs,
    );
    if (met) return last;
    throw new Error(`Timed out waiting for ${pattern} on the tmux screen:\n${last.join("\n")}`);
  }

  /**
   * Waits until the screen matches and is drawn whole: the same on two
   * captures in a row, so a frame still being written is never read.
   */
  async waitForSettled(pattern: RegExp, options: { timeoutMs?: number } = {}): Promise<string[]> {
    let previous = "";
    const settled = (_: string[], text: string) => {
      const same = text === previous;
      previous = text;
      return same && pattern.test(text);
    };
    const { last, met } = await this.#poll(() => this.screen(), settled, options.timeoutMs);
    if (met) return last;
    throw new Error(
      `Timed out waiting for ${pattern} to settle on the tmux screen:\n${last.join("\n")}`,
    );
  }

  /**
   * Waits until the screen no longer matches (a picker closed): keys typed
   * before then may reach the picker, or join a lone escape into alt+key.
   */
  async waitUntilGone(pattern: RegExp, options: { timeoutMs?: number } = {}): Promise<string[]> {
    const gone = (_: string[], text: string) => !pattern.test(text);
    const { last, met } = await this.#poll(() => this.screen(), gone, options.timeoutMs);
    if (met) return last;
    throw new Error(
      `Timed out waiting for ${pattern} to leave the tmux screen:\n${last.join("\n")}`,
    );
  }

  /**
   * The screen once it equals `expected`, or the last one seen at the
   * deadline (for the caller's assertion to show the difference): a redraw
   * may still be under way when the condition before it is met.
   */
  async screenOnceEqual(expected: readonly string[], timeoutMs = 20_000): Promise<string[]> {
    const wanted = expected.join("\n");
    return (await this.#poll(() => this.screen(), (_, text) => text === wanted, timeoutMs)).last;
  }

  /** Resizes the window. */
  async resize(cols: number, rows: number): Promise<void> {
    await this.tmux("resize-window", "-t", "0", "-x", String(cols), "-y", String(rows));
  }

  /** The pid of the pane's process. */
  async panePid(): Promise<number> {
    return Number((await this.tmux("display-message", "-p", "-t", "0", "#{pane_pid}")).trim());
  }

  /** Kills the server. */
  async close(): Promise<void> {
    await this.tmux("kill-server").catch(() => {});
  }
}

/** Quotes a string for sh. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The sh command that runs panto from this checkout with every permission. */
export const PANTO_SH_COMMAND: string = `${shellQuote(Deno.execPath())} run -A ${
  shellQuote(fileURLToPath(new URL("../../cli/main.ts", import.meta.url)))
}`;

/**
 * The environment of a tmux pane running panto: {@linkcode childEnv}, the
 * given PANTO_HOME, a 256-colour TERM, and NO_COLOR.
 *
 * @param home The pane's HOME.
 * @param pantoHome Its PANTO_HOME (default: `home`).
 */
export function pantoPaneEnv(home: string, pantoHome: string = home): Record<string, string> {
  return { ...childEnv(home), PANTO_HOME: pantoHome, TERM: "xterm-256color", NO_COLOR: "1" };
}
