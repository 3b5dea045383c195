import type { Session, SessionStore } from "@panto/lib";
import {
  createTheme,
  DEFAULT_KEYBINDINGS,
  Keybindings,
  loadLanguages,
  ProcessTerminal,
  type Theme,
  TUI,
} from "@panto/tui";
import type { ChatArgs } from "../setup/args.ts";
import { applyKeybindings } from "../config/apply_keybindings.ts";
import { confirmProjectTrustOnTerminal } from "../config/trust_prompt.ts";
import { UsageError } from "../shared/errors.ts";
import {
  interruptExitCode,
  type InterruptSignal,
  listenForInterrupts,
} from "../shared/interrupt_signals.ts";
import { SessionController } from "../controller/session_controller.ts";
import { ChatApp } from "./chat_app.ts";
import { codeLanguages } from "./code_languages.ts";
import { installApprovals } from "../approvals/install_approvals.ts";
import { promptsFromWords } from "../setup/prompt_words.ts";
import { showPicker } from "./picker.ts";
import { sessionPicker } from "./session_picker.ts";
import { startTheme } from "./theme_command.ts";

/** Most time a quit waits for an interrupted turn to save its partial answer (ms). */
const QUIT_GRACE_MS = 3000;

/** The app's key actions, beside the engine's and the editor's. */
export const APP_KEYBINDINGS: Record<string, string[]> = {
  "app.interrupt": ["escape"],
  "app.clear": ["ctrl+c"],
  "app.exit": ["ctrl+d"],
  "app.expandTools": ["ctrl+o"],
  "app.transcript": ["alt+o"],
  "app.toggleThinking": ["ctrl+t"],
  "app.followUp": ["alt+enter"],
  "app.dequeue": ["alt+up"],
  "app.nextModel": ["ctrl+p"],
  "app.previousModel": ["shift+ctrl+p"],
  "app.cycleThinking": ["shift+tab"],
  "app.externalEditor": ["ctrl+g"],
  "app.pasteImage": ["ctrl+v"],
  "app.selectModel": ["ctrl+l"],
};

/**
 * Least time between two frames that no keystroke asked for (a streaming
 * answer, the spinner). 20 frames a second shows text as fast as anyone
 * reads it; every frame costs CPU and bytes whatever it adds, so a fast
 * stream costs a third less than at 60. What is typed is drawn at once
 * regardless (`TUI` renders input without waiting for the interval).
 */
const FRAME_INTERVAL_MS = 50;

/**
 * How long the terminal's size must stay the same before a resize is
 * repainted: a window being dragged is repainted once, at its last size,
 * not once per step with each repaint racing the next step.
 */
const RESIZE_SETTLE_MS = 300;

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
    !args.noSkills,
  );
  const keybindings = new Keybindings(APP_KEYBINDINGS);
  const theme = createTheme();
  // Signals quit the chat as ctrl+d does, so that a running turn saves its partial answer.
  const tui = new TUI(new ProcessTerminal({ exitOnSignals: false }), {
    keybindings,
    minFrameIntervalMs: FRAME_INTERVAL_MS,
    resizeSettleMs: RESIZE_SETTLE_MS,
  });
  const signals = new SignalQuit(tui);
  tui.start();
  const stopListening = listenForInterrupts((signal) => signals.handle(signal));
  try {
    const controller = await SessionController.open(args, {
      pick: (store) => pickSession(tui, theme, store),
      keybindingActions: Object.keys({ ...DEFAULT_KEYBINDINGS, ...APP_KEYBINDINGS }),
      untrustedProject,
    });
    try {
      await chat(controller, args, tui, keybindings, signals);
    } finally {
      // The interrupted run saves its partial answer (and shows that it did) before the UI goes.
      await controller.close(QUIT_GRACE_MS);
      tui.stop();
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

/** Runs the chat until the user quits. */
async function chat(
  controller: SessionController,
  args: ChatArgs,
  tui: TUI,
  keybindings: Keybindings,
  signals: SignalQuit,
): Promise<void> {
  applyKeybindings(keybindings, controller.config);
  const quit = Promise.withResolvers<void>();
  const configured = await startTheme(controller);
  const chatApp = new ChatApp({
    controller,
    tui,
    theme: configured.theme,
    themeName: configured.name,
    onQuit: () => quit.resolve(),
  });
  signals.quit = () => chatApp.quit();
  installApprovals(controller, args, (request, signal) => chatApp.askApproval(request, signal));
  await controller.loadExtensions({
    mode: "interactive",
    uiEvents: chatApp.uiEvents,
    notify: (text, level) => chatApp.notify(text, level),
    // An extension's prompt waits for the running turn rather than changing its course.
    submit: (text) => chatApp.submit(text, "followUp"),
    select: (title, items) => chatApp.pick({ title, items }),
    reservedCommands: [...chatApp.commands.keys()],
  });
  // The resumed conversation's code is coloured from its first drawing (`code_languages.ts`).
  if (controller.resumed) await loadLanguages(codeLanguages(chatApp.agent.conversation.messages));
  chatApp.showStart();
  for (const notice of controller.notices) chatApp.notify(notice, "warning");
  for (const template of controller.resources.templates) {
    if (!chatApp.commands.has(template.name)) continue;
    chatApp.notify(
      `Prompt template ${template.filePath} is not offered as /${template.name}: a built-in command has that name; rename the file`,
      "warning",
    );
  }
  if (configured.problem) chatApp.notify(configured.problem, "error");
  // As pi: the first word is sent, the others follow in turn, each once the one before is answered.
  const [first, ...rest] = promptsFromWords(args.messages);
  if (first !== undefined) chatApp.submit(first);
  for (const prompt of rest) chatApp.submit(prompt, "followUp");
  await quit.promise;
  chatApp.dispose();
}

/** A session picker shown before the chat exists (`-r` without an id): at the top of the empty screen. */
async function pickSession(tui: TUI, theme: Theme, store: SessionStore): Promise<Session | null> {
  const sessions = await store.list({ limit: 200 });
  if (sessions.length === 0) return null;
  const id = await showPicker(tui, theme, sessionPicker(sessions, Deno.cwd()));
  return id === null ? null : await store.resolve(id);
}
