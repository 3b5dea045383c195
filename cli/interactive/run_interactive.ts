import type { Session, SessionStore } from "@panto/lib";
import {
  createTheme,
  DEFAULT_KEYBINDINGS,
  Keybindings,
  ProcessTerminal,
  SelectList,
  type Theme,
  TUI,
} from "@panto/tui";
import type { ChatArgs } from "../args.ts";
import { type App, setupApp } from "../app_setup.ts";
import { applyKeybindings } from "../config/apply_keybindings.ts";
import { confirmProjectTrustOnTerminal } from "../config/trust_prompt.ts";
import { UsageError } from "../errors.ts";
import {
  interruptExitCode,
  type InterruptSignal,
  listenForInterrupts,
} from "../interrupt_signals.ts";
import { loadExtensions } from "../load_extensions.ts";
import { ChatApp } from "./chat_app.ts";
import { sessionItems } from "./slash_commands.ts";

/** Most time a quit waits for an interrupted turn to save its partial answer (ms). */
const QUIT_GRACE_MS = 3000;

/** The app's key actions, beside the engine's and the editor's. */
export const APP_KEYBINDINGS: Record<string, string[]> = {
  "app.interrupt": ["escape"],
  "app.clear": ["ctrl+c"],
  "app.exit": ["ctrl+d"],
  "app.expandTools": ["ctrl+o"],
  "app.toggleThinking": ["ctrl+t"],
};

/**
 * Runs the interactive chat until the user quits.
 *
 * @param args The parsed command line.
 * @returns The exit code.
 */
export async function runInteractive(args: ChatArgs): Promise<number> {
  if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) {
    throw new UsageError(
      "The interactive mode needs a terminal: use -p/--print in scripts and pipes",
    );
  }
  // Asked in the terminal's line mode, before the UI takes it over.
  const untrustedProject = await confirmProjectTrustOnTerminal(
    args.trustProjectConfig,
    !args.noExtensions,
  );
  const keybindings = new Keybindings(APP_KEYBINDINGS);
  const theme = createTheme();
  // Signals quit the chat as ctrl+d does, so that a running turn saves its partial answer.
  const tui = new TUI(new ProcessTerminal({ exitOnSignals: false }), { keybindings });
  const signals = new SignalQuit(tui);
  tui.start();
  const stopListening = listenForInterrupts((signal) => signals.handle(signal));
  try {
    const app = await setupApp(args, {
      pick: (store) => pickSession(tui, theme, store),
      keybindingActions: Object.keys({ ...DEFAULT_KEYBINDINGS, ...APP_KEYBINDINGS }),
      untrustedProject,
    });
    try {
      await chat(app, args, tui, keybindings, theme, signals);
    } finally {
      tui.stop();
      await app.store.close();
    }
    return signals.exitCode;
  } finally {
    stopListening();
    tui.stop();
  }
}

/**
 * What SIGTERM, SIGHUP and SIGINT do: quit the chat as ctrl+d does (the
 * interrupted turn saves its partial answer), then exit with 128 + the
 * signal's number. Before the chat runs, or on a second signal, leave at
 * once, the terminal restored.
 */
class SignalQuit {
  /** Quits the chat, once it runs. */
  quit: (() => void) | undefined;
  readonly #tui: TUI;
  #received: InterruptSignal | undefined;

  constructor(tui: TUI) {
    this.#tui = tui;
  }

  /** The exit code: 0 unless a signal quit. */
  get exitCode(): number {
    return this.#received === undefined ? 0 : interruptExitCode(this.#received);
  }

  handle(signal: InterruptSignal): void {
    if (this.#received === undefined && this.quit !== undefined) {
      this.#received = signal;
      this.quit();
      return;
    }
    this.#tui.stop();
    Deno.exit(interruptExitCode(this.#received ?? signal));
  }
}

/** Runs the chat until the user quits and the interrupted work has saved what it has. */
async function chat(
  app: App,
  args: ChatArgs,
  tui: TUI,
  keybindings: Keybindings,
  theme: Theme,
  signals: SignalQuit,
): Promise<void> {
  applyKeybindings(keybindings, app.config);
  const quit = Promise.withResolvers<void>();
  const chatApp = new ChatApp({ app, tui, theme, onQuit: () => quit.resolve() });
  signals.quit = () => chatApp.quit();
  const host = await loadExtensions(app, args, {
    mode: "interactive",
    uiEvents: chatApp.uiEvents,
    notify: (text, level) => chatApp.notify(text, level),
    submit: (text) => chatApp.submit(text),
    reservedCommands: [...chatApp.commands.keys()],
  });
  if (host) {
    chatApp.extensionCommand = (name, commandArgs) => host.runCommand(name, commandArgs);
    chatApp.extensionKey = (data) => host.handleKey(data);
  }
  chatApp.showStart();
  for (const notice of app.notices) chatApp.notify(notice, "warning");
  const initial = args.messages.join(" ").trim();
  if (initial) chatApp.submit(initial);
  await quit.promise;
  await settledWithin(chatApp, QUIT_GRACE_MS);
}

/** Waits for the chat's running work to end, but no longer than `ms` (a quit must not hang). */
async function settledWithin(chatApp: ChatApp, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([chatApp.settled(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A session picker shown before the chat exists (`-r` without an id). */
function pickSession(tui: TUI, theme: Theme, store: SessionStore): Promise<Session | null> {
  return store.list({ limit: 200 }).then((sessions) => {
    if (sessions.length === 0) return null;
    return new Promise<Session | null>((resolve) => {
      let close = () => {};
      const list = new SelectList(
        sessionItems(sessions),
        {
          theme,
          title: "Resume session",
          keybindings: tui.keybindings,
          onSelect: (item) => {
            close();
            store.resolve(item.value).then(resolve, () => resolve(null));
          },
          onCancel: () => {
            close();
            resolve(null);
          },
        },
      );
      close = tui.showOverlay(list, { anchor: "center", width: "80%" }).close;
    });
  });
}
