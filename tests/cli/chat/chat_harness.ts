/**
 * The interactive chat in-process on a {@linkcode VirtualTerminal}: a fake
 * LLM server, a temp `PANTO_HOME` and project, the real session controller
 * and {@linkcode ChatApp}, and helpers to type, press keys and wait for the
 * screen. Fast screen tests without a pty.
 *
 * @module
 */
// First: the graphemes addon it loads hangs at load time when the npm
// `postgres` package (imported by @panto/lib) was evaluated before it.
import { VirtualTerminal } from "../../support/virtual_terminal.ts";
import { join } from "node:path";
import { createTheme, DEFAULT_KEYBINDINGS, type ImageSupport, Keybindings, TUI } from "@panto/tui";
import { type ChatArgs, parseArgs } from "../../../cli/setup/args.ts";
import { SessionController } from "../../../cli/controller/session_controller.ts";
import { ChatApp } from "../../../cli/chat/chat_app.ts";
import { APP_KEYBINDINGS } from "../../../cli/chat/run_interactive.ts";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";

/** Raw key sequences as a terminal sends them. */
export const KEYS = {
  enter: "\r",
  escape: "\x1b",
  ctrlC: "\x03",
  ctrlD: "\x04",
  ctrlO: "\x0f",
  ctrlT: "\x14",
  down: "\x1b[B",
} as const;

/** A fake server, a `PANTO_HOME` with a config pointing at it, and a project directory. */
export interface ChatFixture {
  /** The fake LLM server (model `fast` on its OpenAI endpoint, `smart` on its Anthropic one). */
  server: FakeLlmServer;
  /** The temp `PANTO_HOME`. */
  home: string;
  /** The temp project directory (the chat's cwd). */
  project: string;
  /** Closes the server and removes both directories. */
  close(): Promise<void>;
}

/**
 * Starts a fake server and writes a config for it in a fresh home.
 *
 * @param extraConfig More top-level settings (default: no provider retries).
 * @returns The fixture; close it.
 */
export async function createChatFixture(
  extraConfig: Record<string, unknown> = { retry: { maxRetries: 0 } },
): Promise<ChatFixture> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-chat-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-chat-project-" });
  await writeFakeConfig(home, server, extraConfig);
  return {
    server,
    home,
    project,
    close: async () => {
      await server.close();
      await Deno.remove(home, { recursive: true });
      await Deno.remove(project, { recursive: true });
    },
  };
}

/** Options for {@linkcode openChat}. */
export interface OpenChatOptions {
  /** Command-line arguments (parsed like `panto`'s), e.g. `["-c"]`. */
  argv?: readonly string[];
  /** Terminal width (default 100). */
  columns?: number;
  /** Terminal height (default 40). */
  rows?: number;
  /**
   * The whole environment of the editor and the clipboard tools (e.g. a
   * fake `xclip` on `PATH`, `VISUAL`): given to the chat, since tests in
   * parallel share this process's environment.
   */
  externalEnv?: Record<string, string>;
  /** What the terminal says it draws (default: no images). */
  imageSupport?: ImageSupport;
}

/** A running chat on a virtual terminal. */
export interface ChatHarness {
  /** The fixture it runs in. */
  fixture: ChatFixture;
  /** The emulated terminal. */
  terminal: VirtualTerminal;
  /** The engine. */
  tui: TUI;
  /** The session controller (store, agent, config). */
  controller: SessionController;
  /** The chat. */
  chat: ChatApp;
  /** How many times the chat asked to quit. */
  readonly quitCount: number;
  /** Types text as keystrokes. */
  type(text: string): Promise<void>;
  /** Sends raw key sequences, one after the other (a lone ESC is delivered at once). */
  press(...keys: string[]): Promise<void>;
  /** Types `text` and presses enter. */
  send(text: string): Promise<void>;
  /**
   * Waits until the screen (or, with `everywhere`, scrollback and screen)
   * matches, and returns that text.
   */
  waitFor(
    pattern: RegExp | string | ((text: string) => boolean),
    options?: WaitOptions,
  ): Promise<string>;
  /** Waits until no turn, command or shell runs. */
  waitIdle(): Promise<void>;
  /** The visible screen, after pending writes. */
  screen(): Promise<string>;
  /** Scrollback and screen, after pending writes. */
  everything(): Promise<string>;
  /** Stops the chat: aborts a running turn, stops the engine, closes the store. */
  close(): Promise<void>;
}

/** Options for {@linkcode ChatHarness.waitFor}. */
export interface WaitOptions {
  /** Also search the scrollback. */
  everywhere?: boolean;
  /** Give up after this many ms (default 15000: generous for a loaded CI machine). */
  timeoutMs?: number;
}

/** The chat's key actions as `run_interactive` lists them for the config. */
const KEY_ACTIONS = Object.keys({ ...DEFAULT_KEYBINDINGS, ...APP_KEYBINDINGS });

/**
 * Opens the chat in `fixture` (welcome and, on resume, history shown).
 *
 * @param fixture Server, home and project.
 * @param options Arguments and terminal size.
 * @returns The harness; close it before the fixture.
 */
export async function openChat(
  fixture: ChatFixture,
  options: OpenChatOptions = {},
): Promise<ChatHarness> {
  const args = parseArgs(options.argv ?? []) as ChatArgs;
  const controller = await SessionController.open(args, {
    cwd: fixture.project,
    pantoHome: fixture.home,
    keybindingActions: KEY_ACTIONS,
  });
  const terminal = new VirtualTerminal(
    options.columns ?? 100,
    options.rows ?? 40,
    options.imageSupport ? { imageSupport: options.imageSupport } : {},
  );
  const tui = new TUI(terminal, { keybindings: new Keybindings(APP_KEYBINDINGS) });
  let quitCount = 0;
  const chat = new ChatApp({
    controller,
    tui,
    theme: createTheme({ noColor: true }),
    onQuit: () => quitCount++,
    ...(options.externalEnv ? { externalEnv: options.externalEnv } : {}),
  });
  tui.start();
  chat.showStart();
  const text = async (lines: () => string[]) => {
    await terminal.flush();
    return lines().join("\n");
  };
  const harness: ChatHarness = {
    fixture,
    terminal,
    tui,
    controller,
    chat,
    get quitCount() {
      return quitCount;
    },
    type: async (typed) => {
      for (const char of typed) terminal.feed(char);
      await terminal.flush();
    },
    press: async (...keys) => {
      for (const key of keys) {
        terminal.feed(key);
        // A lone ESC waits for more bytes; deliver it now, as the timeout would.
        if (key === KEYS.escape) terminal.flushInput();
      }
      await terminal.flush();
    },
    send: async (typed) => {
      await harness.type(typed);
      await harness.press(KEYS.enter);
    },
    waitFor: (pattern, waitOptions = {}) =>
      poll(
        () => text(() => waitOptions.everywhere ? terminal.allLines() : terminal.screenLines()),
        (screen) =>
          typeof pattern === "string"
            ? screen.includes(pattern)
            : typeof pattern === "function"
            ? pattern(screen)
            : pattern.test(screen),
        `${pattern} on the ${waitOptions.everywhere ? "terminal" : "screen"}`,
        waitOptions.timeoutMs,
      ),
    waitIdle: async () => {
      await poll(() => Promise.resolve(chat.busy), (busy) => !busy, "the chat to be idle");
    },
    screen: () => text(() => terminal.screenLines()),
    everything: () => text(() => terminal.allLines()),
    close: async () => {
      if (chat.busy) {
        await harness.press(KEYS.escape);
        await harness.waitIdle();
      }
      tui.stop();
      chat.dispose();
      // stop() may draw a last frame: let the emulator finish parsing it (its timer).
      await terminal.flush();
      terminal.dispose();
      await controller.close();
    },
  };
  await harness.waitFor(/^panto \d/m);
  return harness;
}

/**
 * Runs `body` with a fresh fixture and chat, closing both afterwards.
 *
 * @param body The test.
 * @param options Chat options, plus extra config for the fixture.
 */
export async function withChat(
  body: (chat: ChatHarness) => Promise<void>,
  options: OpenChatOptions & { config?: Record<string, unknown> } = {},
): Promise<void> {
  const fixture = await createChatFixture(options.config);
  try {
    const chat = await openChat(fixture, options);
    try {
      await body(chat);
    } finally {
      await chat.close();
    }
  } finally {
    await fixture.close();
  }
}

/** A file in the project directory. */
export function projectPath(chat: ChatHarness, name: string): string {
  return join(chat.fixture.project, name);
}

/** Polls `read` every 10 ms until `done` holds; throws with the last value after the timeout. */
async function poll<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}; last seen:\n${value}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
