import {
  type Agent,
  DEFAULT_MAX_RETRIES,
  estimateContextTokens,
  type ImageBlock,
  messageText,
} from "@panto/lib";
import {
  type Component,
  Container,
  Editor,
  type FullScreenHandle,
  type ImageSupport,
  type Keybindings,
  Loader,
  NO_IMAGES,
  sanitizeTerminalText,
  Spacer,
  SwitchableTheme,
  Text,
  type Theme,
  type TUI,
} from "@panto/tui";
import { Footer } from "./components/footer.ts";
import { NoticeLine, noticeStyle } from "./components/notice_line.ts";
import { PendingQueue } from "./components/pending_queue.ts";
import type { ToolUse } from "./components/tool_use.ts";
import { Welcome } from "./components/welcome.ts";
import { UI_EVENTS, UiEvents } from "./ui_events.ts";
import type { ControllerEvent } from "../controller/controller_events.ts";
import type { SessionController } from "../controller/session_controller.ts";
import { VERSION } from "../version.ts";
import { ChatAutocomplete } from "./autocomplete.ts";
import { gitBranch } from "./git_branch.ts";
import { type CommandContext, type SlashCommand, slashCommands } from "./slash_commands.ts";
import { type PickerOptions, showPicker } from "./picker.ts";
import { INTERRUPTED, type TranscriptImages, TranscriptView } from "./transcript_view.ts";
import { TurnRenderer } from "./turn_renderer.ts";
import { showTranscriptViewer } from "./transcript_viewer.ts";
import { errorMessage } from "../shared/error_message.ts";
import { formatBytes } from "@panto/lib/tools";
import { type ClipboardImage, readClipboardImage } from "./clipboard_image.ts";
import { type Copied, copyText } from "./clipboard_text.ts";
import { join, relative } from "node:path";
import { optionalEnv, readEnv } from "../shared/env.ts";
import { editExternally } from "./external_editor.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../approvals/approval_gate.ts";
import { showApprovalDialog } from "./approval_dialog.ts";
import { shellLine } from "../controller/shell_command.ts";
import { captureKey } from "./key_capture.ts";
import { collectGarbageSoon } from "./idle_gc.ts";
import { drawWithLanguages } from "./code_languages.ts";

/** How long a second ctrl+c counts as "quit" (ms). */
const DOUBLE_PRESS_MS = 1500;

/** How soon a second esc on an empty, idle editor opens /tree (ms; pi's window). */
const DOUBLE_ESCAPE_MS = 500;

/** Two esc presses read as one sequence (the terminal wrote both before panto read them). */
const TWO_ESCAPES = "\x1b\x1b";

/** How long a key's hint (model switched, thinking level) stays in the status line (ms). */
const HINT_MS = 2500;

/** How long a failed paste's notice stays (ms): long enough to read which tool is missing. */
const PASTE_HINT_MS = 6000;

/** A slash command: `/name` then the end or a space; `/usr/bin/env …` is a prompt. */
const COMMAND_LINE = /^\/[^\s/]*(?:\s|$)/;

/** Options for {@linkcode ChatApp}. */
export interface ChatAppOptions {
  /** The session controller the chat is a view of. */
  controller: SessionController;
  /** The running engine. */
  tui: TUI;
  /** Colours at first (see {@linkcode ChatApp.setTheme}). */
  theme: Theme;
  /** The name of that theme (default `dark`). */
  themeName?: string;
  /** Called when the user quits. */
  onQuit: () => void;
  /**
   * The whole environment of the programs the chat starts for the user (the
   * editor, clipboard tools); by default they inherit panto's, which is the
   * user's less the withheld key variables.
   */
  externalEnv?: Readonly<Record<string, string>>;
}

/** A path relative to `cwd` when under it, else under `~` when under the home directory. */
function shortPath(path: string, cwd: string): string {
  const fromCwd = relative(cwd, path);
  if (!fromCwd.startsWith("..")) return fromCwd;
  const home = readEnv("HOME");
  return home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** How a pasted image is shown: `[image 1: 34.0 KB png]`. */
function imageLabel(image: ClipboardImage, index: number): string {
  const kind = image.block.mediaType.replace("image/", "");
  return `[image ${index + 1}: ${formatBytes(image.bytes)} ${kind}]`;
}

/** An image sent before, as if pasted again. */
function pastedImage(block: ImageBlock): ClipboardImage {
  return { block, bytes: Uint8Array.fromBase64(block.data).length };
}

/**
 * The interactive chat, a view over a {@linkcode SessionController}:
 * transcript, loader, editor and footer on a {@linkcode TUI}. It draws the
 * controller's events and turns keys and typed lines into its commands
 * (prompts; steering with enter and follow-ups with alt+enter while busy,
 * shown above the editor; slash commands, `!shell`, model and thinking
 * keys, abort, quit).
 */
export class ChatApp implements CommandContext {
  /** The session controller. */
  readonly controller: SessionController;
  /** The engine the chat draws on. */
  readonly tui: TUI;
  /** Colours: every component holds this one, so {@linkcode ChatApp.setTheme} recolours them all. */
  readonly theme: SwitchableTheme;
  /** UI events extensions hook into. */
  readonly uiEvents: UiEvents;
  /** The conversation as shown. */
  readonly transcript = new Container();
  /** The input editor. */
  readonly editor: Editor;
  /** The built-in slash commands, by name. */
  readonly commands: Map<string, SlashCommand>;
  #view: TranscriptView;
  #renderer: TurnRenderer | undefined;
  #shellTool: ToolUse | undefined;
  /** The one line passing states share (a retry, ctrl+t); gone at the next prompt. */
  #transient: NoticeLine | undefined;
  #status = new Container();
  #hint = new Container();
  #hintTimer: ReturnType<typeof setTimeout> | undefined;
  #pending: PendingQueue;
  /** Images pasted for the next prompt, listed on a line above the editor. */
  #images: ClipboardImage[] = [];
  #imageLine = new Container();
  #footer: Footer;
  #loader: Loader | undefined;
  #lastCtrlC = 0;
  #lastEscape = 0;
  /** The transcript viewer last opened (closing it again does nothing). */
  #viewer: FullScreenHandle | undefined;
  readonly #onQuit: () => void;
  readonly #externalEnv: Readonly<Record<string, string>> | undefined;
  readonly #branch: string | undefined;
  #themeName: string;
  /** What the terminal draws: placeholders until it answered the start-up queries. */
  #imageSupport: ImageSupport = NO_IMAGES;
  readonly #transcriptImages: TranscriptImages = {
    support: () => this.#imageSupport,
    // Below the screen's height, so that all of an image's rows fit on it.
    maxRows: () => Math.max(1, Math.min(16, this.tui.terminal.rows - 6)),
    changed: () => this.tui.requestRender(),
  };

  /**
   * Puts the transcript, status line, editor and footer on the engine,
   * takes its input and draws the controller's events.
   *
   * @param options The controller, engine, theme and quit callback.
   */
  constructor(options: ChatAppOptions) {
    this.controller = options.controller;
    this.tui = options.tui;
    this.theme = new SwitchableTheme(options.theme);
    this.#themeName = options.themeName ?? "dark";
    this.#onQuit = options.onQuit;
    this.#externalEnv = options.externalEnv;
    this.uiEvents = new UiEvents({
      onError: (error, name) =>
        this.notify(`A handler of the "${name}" UI event failed: ${errorMessage(error)}`, "error"),
      mount: (component) => this.#append(component),
    });
    this.#view = new TranscriptView(
      this.uiEvents,
      this.theme,
      !this.controller.config.hideThinkingBlock,
      this.#transcriptImages,
    );
    this.#detectImages();
    this.commands = slashCommands();
    this.editor = new Editor({
      theme: this.theme,
      keybindings: this.tui.keybindings,
      requestRender: () => this.tui.requestRender(),
      onSubmit: (text) => this.submit(text),
      autocomplete: new ChatAutocomplete(this.controller.cwd, () => this.#commandNames()),
      onError: (error) => this.notify(errorMessage(error), "error"),
    });
    this.#footer = new Footer({}, this.theme);
    this.#pending = new PendingQueue(this.theme);
    this.#branch = gitBranch(this.controller.cwd);
    this.tui.addChild(this.transcript);
    this.tui.addChild(this.#status);
    this.tui.addChild(this.#hint);
    this.tui.addChild(this.#pending);
    this.tui.addChild(this.#imageLine);
    this.tui.addChild(this.editor);
    this.tui.addChild(this.#footer);
    this.tui.setFocus(this.editor);
    this.tui.onInput((data) => this.#handleKey(data));
    this.controller.subscribe((event) => this.#onControllerEvent(event));
  }

  /** The keybinding table in use (the defaults and the config's). */
  get keybindings(): Keybindings {
    return this.tui.keybindings;
  }

  /** The current agent (replaced by /new and /resume). */
  get agent(): Agent {
    return this.controller.agent;
  }

  /** Whether a run, compaction or shell command is running. */
  get busy(): boolean {
    return this.controller.busy;
  }

  /** Whether nothing runs; otherwise warns that `action` must wait. */
  ensureIdle(action: string): boolean {
    if (!this.busy) return true;
    this.notify(`Wait for the current turn to finish (or press esc) before ${action}`, "warning");
    return false;
  }

  /** Shows the welcome and, when resumed, the stored conversation. */
  showStart(): void {
    this.#append(this.#welcome());
    if (this.controller.resumed) {
      for (const component of this.#view.history(this.agent.conversation.messages)) {
        this.#append(component);
      }
      this.notify(`Resumed session ${this.agent.sessionId}`, "info");
    }
    this.#offerDangling();
    this.#updateFooter();
    // Loading the modules and drawing a resumed history leave garbage that nothing else
    // collects while the chat waits for the first prompt (about 4 MiB on a fresh start).
    collectGarbageSoon();
  }

  /**
   * Handles a submitted line: a slash command, `!shell`, or a prompt
   * (while something runs: steering for the running turn, or with
   * `busyAs` "followUp" a follow-up; a `!shell` or `!!shell` command is
   * queued after it).
   */
  submit(text: string, busyAs: "steer" | "followUp" = "steer"): void {
    const trimmed = text.trim();
    if (!trimmed) return;
    if (COMMAND_LINE.test(trimmed)) {
      void this.#runCommand(trimmed);
      return;
    }
    const shell = shellLine(trimmed);
    if (shell?.command === "") {
      return this.notify(
        "Usage: !command (runs it and adds its output to the next prompt) or !!command (runs it and only shows its output)",
        "info",
      );
    }
    if (this.busy) {
      if (shell !== undefined) this.controller.queueShell(shell.command, shell);
      else if (busyAs === "steer") this.controller.steer(trimmed);
      else this.controller.followUp(trimmed);
      if (this.#images.length) {
        this.#showHint("Pasted images wait for the next prompt sent when idle.");
      }
      return;
    }
    // Failures are shown from the controller's events.
    if (shell !== undefined) {
      void this.controller.runShell(shell.command, undefined, shell).catch(() => {});
    } else if (this.#images.length) this.#promptWithImages(trimmed);
    else {this.controller.prompt(trimmed).catch((error) =>
        this.notify(errorMessage(error), "error")
      );}
  }

  /**
   * Resolves once no run, shell command or compaction is left running and
   * nothing is queued (after a quit, an interrupted run still saves its
   * partial answer).
   */
  settled(): Promise<void> {
    return this.controller.idle();
  }

  /**
   * Shows a one-line notice in the transcript. Notices carry provider and
   * tool error text and extensions' strings: terminal controls are stripped.
   */
  notify(text: string, level: "info" | "warning" | "error" = "info"): void {
    this.#append(this.#view.notice(text, level));
  }

  /**
   * Shows a passing state (a retry, thinking shown or hidden) on the
   * transcript's one transient line: the newest replaces the one before (in
   * place while it is still the last line), and the next prompt clears it.
   */
  notifyTransient(text: string, level: "info" | "warning" | "error" = "info"): void {
    const safe = sanitizeTerminalText(text);
    const current = this.#transient;
    if (current !== undefined && this.transcript.children.at(-1) === current) {
      current.setText(safe, noticeStyle(this.theme, level));
      return this.tui.requestRender();
    }
    this.#clearTransient();
    this.#transient = new NoticeLine(safe, noticeStyle(this.theme, level));
    this.#append(this.#transient);
  }

  #clearTransient(): void {
    if (this.#transient !== undefined) this.#remove(this.#transient);
    this.#transient = undefined;
  }

  /** The theme in use: its name and colours. */
  get activeTheme(): { readonly name: string; readonly theme: Theme } {
    return { name: this.#themeName, theme: this.theme.current };
  }

  /** Recolours the whole chat with `theme` (called `name`) at once: the screen is drawn again. */
  setTheme(name: string, theme: Theme): void {
    this.#themeName = name;
    this.theme.set(theme);
    this.tui.requestRender(true);
  }

  /** Shows a picker in a bordered panel where the editor was; resolves with the choice or `null` on escape. */
  pick<T>(options: Omit<PickerOptions<T>, "replace">): Promise<T | null> {
    this.#viewer?.close(); // an extension's question must be on screen, not under the viewer
    return showPicker(this.tui, this.theme, { ...options, replace: this.editor });
  }

  /**
   * Asks whether a tool call may run (`tools.requireApproval`): a dialog in
   * place of the editor, the footer saying what the chat waits for; ctrl+c
   * stops the run as esc does otherwise.
   */
  async askApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const name = sanitizeTerminalText(request.call.name);
    this.#viewer?.close(); // the dialog takes the focus: it must be on screen, not under the viewer
    // The loader's "esc to cancel" would be wrong: esc rejects the call here.
    const loader = this.#loader;
    this.#status.clear();
    this.#footer.update({ waiting: `waiting for approval of ${name}` });
    try {
      return await showApprovalDialog(request, signal, {
        tui: this.tui,
        theme: this.theme,
        replace: this.editor,
        onInterrupt: () => {
          this.#restoreQueue();
          this.controller.abort();
        },
      });
    } finally {
      this.#footer.update({ waiting: undefined });
      if (loader && loader === this.#loader) this.#status.addChild(loader);
    }
  }

  /** Shows or hides thinking blocks. */
  toggleThinking(): void {
    this.#view.setShowThinking(!this.#view.showThinking);
    this.notifyTransient(this.#view.showThinking ? "Thinking shown." : "Thinking hidden.");
  }

  /** Shows or hides thinking blocks, without a notice. */
  setThinkingShown(show: boolean): void {
    this.#view.setShowThinking(show);
  }

  /** Asks for a key in a panel where the editor is. */
  captureKey(title: string): Promise<string | null> {
    this.#viewer?.close();
    return captureKey(this.tui, this.theme, title, this.editor);
  }

  /** Copies text to the clipboard (a clipboard tool and/or OSC 52); says how. */
  copyToClipboard(text: string): Promise<Copied> {
    return copyText(text, {
      writeTerminal: (bytes) => this.tui.terminal.write(bytes),
      ...(this.#externalEnv ? { env: this.#externalEnv } : {}),
    });
  }

  /** The text of the last assistant message. */
  lastAnswer(): string | undefined {
    const last = this.agent.conversation.messages.findLast((m) =>
      m.role === "assistant" && messageText(m).trim()
    );
    return last ? messageText(last) : undefined;
  }

  /** Draws images once the terminal said it can (until then they show as placeholders). */
  #detectImages(): void {
    void this.tui.terminal.imageSupport?.().then((support) => {
      this.#imageSupport = support;
      if (support.protocol !== null) this.tui.requestRender(true);
    });
  }

  /** Stops the chat's own timers (a hint waiting to be cleared); call once the engine stopped. */
  dispose(): void {
    clearTimeout(this.#hintTimer);
  }

  /** Quits: drops queued prompts and aborts what runs (see {@linkcode ChatApp.settled}). */
  quit(): void {
    this.controller.takeQueue();
    this.controller.abort();
    this.#onQuit();
  }

  #onControllerEvent(event: ControllerEvent): void {
    switch (event.type) {
      case "user_prompt":
        this.#clearTransient();
        this.#append(this.#view.user(event.text, event.images));
        this.#startLoader("Working");
        this.#renderer = new TurnRenderer(
          this.#view,
          { append: (c) => this.#append(c), remove: (c) => this.#remove(c) },
          (t, l, transient) => transient ? this.notifyTransient(t, l) : this.notify(t, l),
          this.agent.config.retry?.maxRetries ?? DEFAULT_MAX_RETRIES,
        );
        return;
      case "run_end":
        this.#renderer = undefined;
        this.#stopLoader();
        collectGarbageSoon();
        if (event.failure) this.notify(event.failure.message, "error");
        if (this.controller.danglingPrompt !== undefined) {
          this.#offerUnanswered(event.status === "aborted");
        } else if (event.status === "aborted") {
          this.notify(INTERRUPTED, "warning");
        }
        return this.#updateFooter();
      case "notice":
        return this.notify(event.text, event.level);
      case "session_changed":
        collectGarbageSoon();
        return drawWithLanguages(
          this.agent.conversation.messages,
          () => this.#showSession(event.reason),
        );
      case "model_changed":
        this.#showHint(`Model ${event.alias} (${event.model}) · thinking ${event.reasoning}`);
        return this.#updateFooter();
      case "compaction_start":
        return this.#startLoader("Compacting");
      case "compaction_end":
        this.#stopLoader();
        if (event.failure !== undefined) {
          this.notify(`Compaction failed: ${event.failure}`, "error");
        } else if (event.result) {
          const { summary, tokensBefore, tokensAfter } = event.result;
          this.#append(this.#view.compaction(summary, tokensBefore, tokensAfter));
        } else {
          this.notify("Nothing to compact yet.", "info");
        }
        return this.#updateFooter();
      case "session_named":
        this.notify(
          event.pending
            ? `The session will be named "${event.name}" once it is saved (after the first answer).`
            : `Session named "${event.name}".`,
          "info",
        );
        return this.#updateFooter();
      case "shell_start": {
        const { component, tool } = this.#view.tool(
          `shell-${Date.now()}`,
          event.excluded ? "!!" : "!",
        );
        tool.setArgs({ command: event.command });
        tool.setStatus("running");
        this.#shellTool = tool;
        this.#append(component);
        return this.#startLoader(`Running ${event.command}`);
      }
      case "shell_end":
        this.#shellTool?.setResult(event.output, event.failed);
        this.#shellTool?.setStatus(event.failed ? "error" : "done");
        this.#shellTool = undefined;
        return this.#stopLoader();
      case "steer_applied":
        return this.#append(this.#view.user(messageText(event.message)));
      case "queue_update":
        this.#pending.update(event);
        return this.tui.requestRender();
      default:
        this.#renderer?.handle(event);
        this.#onAgentEvent(event);
        this.tui.requestRender();
    }
  }

  /** Another session is current: its welcome (and, unless new, its history) on a fresh screen. */
  #showSession(reason: "new" | "switch" | "fork" | "branch"): void {
    this.transcript.clear();
    this.#transient = undefined;
    // The old conversation stays in the terminal's history instead of being drawn over.
    this.tui.keepScreenInHistory();
    this.#view = new TranscriptView(
      this.uiEvents,
      this.theme,
      this.#view.showThinking,
      this.#transcriptImages,
    );
    this.#append(this.#welcome());
    if (reason !== "new") {
      for (const component of this.#view.history(this.agent.conversation.messages)) {
        this.#append(component);
      }
    }
    const notice = reason === "new"
      ? "New session."
      : reason === "switch"
      ? `Resumed session ${this.agent.sessionId}`
      : reason === "branch"
      ? "Continuing from an earlier point: the next prompt starts a new branch (/tree to look)."
      : `Forked into session ${this.agent.sessionId}`;
    this.notify(notice, "info");
    this.#offerDangling(
      reason === "branch"
        ? "The chosen prompt is in the editor: edit it and send it to start the new branch."
        : reason === "fork"
        ? "The chosen prompt is in the editor: edit it and send it to go on in the new session."
        : undefined,
    );
    this.#updateFooter();
  }

  /**
   * A prompt of the session that got no answer goes back in the editor as
   * typed, its pasted images back above it, to send or edit.
   */
  #offerDangling(notice?: string, level: "info" | "warning" = "info"): void {
    const text = this.controller.danglingPrompt;
    if (text === undefined) return;
    this.editor.setText(text);
    this.#setImages(this.controller.danglingImages.map(pastedImage));
    if (notice) return this.notify(notice, level);
    this.notify(
      "The last prompt got no answer; it is back in the editor (enter sends it again).",
      "warning",
    );
  }

  /**
   * A prompt interrupted or failed before any answer is not sent again:
   * it goes back in the editor unless something was typed there meanwhile.
   * Interrupted, it says so first, as after an answer, so esc is always confirmed.
   */
  #offerUnanswered(interrupted: boolean): void {
    const what = interrupted
      ? "Interrupted before any answer: the prompt will not be sent again"
      : "The prompt got no answer and will not be sent again";
    if (this.editor.getText().trim() !== "" || this.#images.length) {
      return this.notify(`${what} (send it again to ask it).`, "warning");
    }
    this.#offerDangling(`${what}; it is back in the editor (enter sends it).`, "warning");
  }

  #handleKey(data: string): boolean {
    const keys = this.tui.keybindings;
    // A picker open has the focus and its own keys: esc and ctrl+c cancel it (not the
    // turn, nor count towards quitting), and ctrl+p and the like wait until it closes.
    if (this.tui.focusedComponent !== this.editor) return false;
    // Two esc presses read at once (alt+escape to the key parser) interrupt as one does.
    const interrupt = keys.matches(data, "app.interrupt") || data === TWO_ESCAPES;
    if (interrupt && this.busy && !this.editor.showingSuggestions) {
      this.#restoreQueue();
      this.controller.abort();
      return true;
    }
    if (this.#handleQueueKey(data)) return true;
    if (keys.matches(data, "app.clear")) {
      const now = Date.now();
      if (this.editor.getText() !== "" || this.#images.length) {
        this.editor.setText("");
        this.#setImages([]);
        this.#lastCtrlC = now;
      } else if (now - this.#lastCtrlC < DOUBLE_PRESS_MS) {
        this.quit();
      } else {
        this.#lastCtrlC = now;
        this.#showHint("Press ctrl+c again to quit.", DOUBLE_PRESS_MS);
      }
      return true;
    }
    if (keys.matches(data, "app.exit") && this.editor.getText() === "") {
      this.quit();
      return true;
    }
    // Extensions come after the keys that must always work (interrupt, clear, quit).
    if (this.controller.extensions?.handleKey(data)) {
      this.tui.requestRender(true);
      return true;
    }
    if (keys.matches(data, "app.transcript")) {
      this.#openTranscript("end");
      return true;
    }
    if (keys.matches(data, "app.expandTools")) {
      // Expanding lines already in the terminal's history would show nothing: read them there.
      if (!this.#view.expanded && this.#lastCollapsibleScrolledAway()) {
        this.#openTranscript("lastMark");
      } else this.#view.setExpanded(!this.#view.expanded);
      return true;
    }
    if (keys.matches(data, "app.toggleThinking")) {
      this.toggleThinking();
      return true;
    }
    if (keys.matches(data, "app.externalEditor")) {
      void this.#editExternally();
      return true;
    }
    if (keys.matches(data, "app.pasteImage")) {
      void this.#pasteImage();
      return true;
    }
    if (keys.matches(data, "app.selectModel") && !this.editor.showingSuggestions) {
      void this.#runCommand("/model");
      return true;
    }
    if (this.#isDoubleEscape(data)) {
      void this.#runCommand("/tree");
      return true;
    }
    return this.#handleModelKey(data);
  }

  /** Opens the transcript viewer at the end of the conversation or at its last tool call. */
  #openTranscript(start: "end" | "lastMark"): void {
    const source = {
      events: this.uiEvents,
      theme: this.theme,
      messages: this.agent.conversation.messages,
      showThinking: this.#view.showThinking,
    };
    this.#viewer = showTranscriptViewer(this.tui, source, start);
  }

  /**
   * Whether the last thing ctrl+o would expand (a tool call, a compaction
   * summary) starts above the screen's top row, in the terminal's history.
   */
  #lastCollapsibleScrolledAway(): boolean {
    const item = this.transcript.children.findLast((child) => this.#view.isCollapsible(child));
    const line = item === undefined ? null : this.transcript.lineOf(item);
    const offset = this.tui.lineOf(this.transcript);
    return line !== null && offset !== null && offset + line < this.tui.firstLineOnScreen;
  }

  /**
   * esc twice quickly on an empty editor with nothing running opens /tree
   * (as pi). The first esc still reaches the editor; an esc that interrupts
   * a turn never counts (it is handled before this).
   */
  #isDoubleEscape(data: string): boolean {
    const idleAndEmpty = !this.busy && !this.editor.showingSuggestions &&
      this.editor.getText().trim() === "" && this.#images.length === 0;
    if (!idleAndEmpty) return false;
    if (data === TWO_ESCAPES) return true;
    if (!this.tui.keybindings.matches(data, "app.interrupt")) return false;
    const now = Date.now();
    const second = now - this.#lastEscape < DOUBLE_ESCAPE_MS;
    this.#lastEscape = second ? 0 : now;
    return second;
  }

  /** ctrl+g: the input in the user's editor, read back when it exits; a failure keeps the draft. */
  async #editExternally(): Promise<void> {
    const draft = this.editor.getText();
    try {
      const edited = await editExternally(draft, {
        draftsDir: join(this.controller.pantoHome, "drafts"),
        editorName: this.#externalEnv
          ? this.#externalEnv.VISUAL || this.#externalEnv.EDITOR
          : optionalEnv("VISUAL") || optionalEnv("EDITOR"),
        runOutside: (run) => this.tui.runOutside(run),
        ...(this.#externalEnv ? { env: this.#externalEnv } : {}),
      });
      this.editor.setText(edited);
    } catch (error) {
      this.editor.setText(draft);
      this.notify(errorMessage(error), "warning");
    }
    this.tui.requestRender();
  }

  /** ctrl+v: the clipboard's image joins the next prompt; a notice says why when there is none. */
  async #pasteImage(): Promise<void> {
    try {
      const image = await readClipboardImage(this.#externalEnv ? { env: this.#externalEnv } : {});
      this.#setImages([...this.#images, image]);
    } catch (error) {
      this.#showHint(errorMessage(error), PASTE_HINT_MS);
    }
  }

  #setImages(images: ClipboardImage[]): void {
    this.#images = images;
    this.#imageLine.clear();
    if (images.length) {
      const labels = images.map((image, i) => imageLabel(image, i)).join(" ");
      this.#imageLine.addChild(
        new Text(`${labels} · sent with the next prompt (ctrl+c drops them)`, {
          style: (line) => this.theme.fg("accent", line),
        }),
      );
    }
    this.tui.requestRender();
  }

  /** Sends the prompt with the pasted images (its `@path` files are attached as usual). */
  #promptWithImages(text: string): void {
    const images = this.#images;
    this.#setImages([]);
    this.controller.prompt(text, { images: images.map((image) => image.block) })
      .catch((error) => this.notify(errorMessage(error), "error"));
    this.notify(`Attached ${images.map(imageLabel).join(", ")}`, "info");
  }

  /** alt+enter queues a follow-up while busy; alt+up takes the last queued prompt back. */
  #handleQueueKey(data: string): boolean {
    const keys = this.tui.keybindings;
    if (keys.matches(data, "app.followUp") && this.busy) {
      const text = this.editor.getText().trim();
      if (text === "") return true;
      this.editor.setText("");
      const shell = shellLine(text);
      if (shell?.command) this.controller.queueShell(shell.command, shell);
      else this.controller.followUp(text);
      return true;
    }
    if (keys.matches(data, "app.dequeue")) {
      const text = this.controller.takeLastQueued();
      if (text === undefined) return false;
      this.#prependToEditor([text]);
      return true;
    }
    return false;
  }

  /** ctrl+p / shift+ctrl+p cycle the models, shift+tab the reasoning level (when idle). */
  #handleModelKey(data: string): boolean {
    const keys = this.tui.keybindings;
    const action = keys.actionFor(data, [
      "app.nextModel",
      "app.previousModel",
      "app.cycleThinking",
    ]);
    if (action === undefined || this.editor.showingSuggestions) return false;
    if (this.busy) {
      this.#showHint("Wait for the current turn to finish (or press esc) before switching.");
      return true;
    }
    try {
      if (action === "app.cycleThinking") {
        const levels = this.controller.thinkingLevels;
        const at = levels.indexOf(this.controller.model.provider.reasoning);
        this.controller.setThinkingLevel(levels[(at + 1) % levels.length]!);
      } else {
        this.controller.cycleModel(action === "app.nextModel" ? 1 : -1);
      }
    } catch (error) {
      this.notify(errorMessage(error), "error");
    }
    return true;
  }

  /** esc: the queued prompts go back in the editor (before what it holds) instead of being sent. */
  #restoreQueue(): void {
    const queued = this.controller.takeQueue();
    if (queued.length) this.#prependToEditor(queued);
  }

  #prependToEditor(texts: readonly string[]): void {
    const current = this.editor.getText();
    this.editor.setText([...texts, ...(current.trim() ? [current] : [])].join("\n\n"));
    this.tui.requestRender();
  }

  /** A one-line hint in the status area that goes away after `ms` (or the next hint). */
  #showHint(text: string, ms = HINT_MS): void {
    clearTimeout(this.#hintTimer);
    this.#hint.clear();
    this.#hint.addChild(
      new Text(sanitizeTerminalText(text), { style: (line) => this.theme.fg("muted", line) }),
    );
    this.#hintTimer = setTimeout(() => {
      this.#hint.clear();
      this.tui.requestRender();
    }, ms);
    this.tui.requestRender();
  }

  /** The tool calls running now, by id: the loader names the latest, and says "Working" after. */
  readonly #runningTools = new Map<string, string>();

  #onAgentEvent(event: ControllerEvent): void {
    if (event.type === "message_complete") this.#updateFooter();
    if (event.type === "tool_dispatch_start") {
      this.#runningTools.set(event.call.id, sanitizeTerminalText(event.call.name));
      this.#loader?.setMessage(`Running ${sanitizeTerminalText(event.call.name)}`);
    }
    if (event.type === "tool_dispatch_complete") {
      this.#runningTools.delete(event.call.id);
      const still = [...this.#runningTools.values()].at(-1);
      // The model gets the results next: the loader must not go on naming a finished tool.
      this.#loader?.setMessage(still === undefined ? "Working" : `Running ${still}`);
    }
    if (event.type === "block_start") {
      this.#loader?.setMessage(event.kind === "thinking" ? "Thinking" : "Working");
    }
  }

  async #runCommand(line: string): Promise<void> {
    const rawName = line.slice(1).split(/\s+/, 1)[0] ?? "";
    const name = rawName.toLowerCase();
    const args = line.slice(1 + rawName.length).trim();
    const command = this.commands.get(name);
    try {
      if (command) return await command.run(this, args);
      if (await this.controller.extensions?.runCommand(name, args)) return;
      const prompt = await this.controller.expandPromptCommand(line);
      if (prompt !== undefined) return this.#sendPrompt(prompt);
      // The line is not lost: it goes back in the editor, to fix or to send as "//…".
      if (this.editor.getText() === "") this.editor.setText(line);
      this.notify(
        `Unknown command /${name}. Type /help for the list; the line is back in the editor (start it with // to send it as a prompt).`,
        "warning",
      );
    } catch (error) {
      this.notify(`/${name} failed: ${errorMessage(error)}`, "error");
    }
  }

  #commandNames(): { name: string; description: string }[] {
    return [...this.commands.entries()].map(([name, c]) => ({ name, description: c.description }))
      .concat(this.controller.extensionCommands())
      .concat(this.controller.promptCommands().filter((c) => !this.commands.has(c.name)));
  }

  /** Sends a skill's or template's prompt: steering what runs, else as a new prompt. */
  #sendPrompt(text: string): void {
    if (this.busy) return this.controller.steer(text);
    this.controller.prompt(text).catch((error) => this.notify(errorMessage(error), "error"));
  }

  /** Shows the loader; esc aborts what the controller runs. */
  #startLoader(message: string): void {
    this.#loader?.stop();
    this.#loader = new Loader({
      theme: this.theme,
      message,
      requestRender: () => this.tui.requestRender(),
    });
    this.#status.clear();
    this.#status.addChild(this.#loader);
    this.#loader.start();
  }

  #stopLoader(): void {
    this.#loader?.stop();
    this.#loader = undefined;
    this.#status.clear();
    this.tui.requestRender();
  }

  #append(component: Component): void {
    if (this.transcript.children.length > 0) this.transcript.addChild(new Spacer(1));
    this.transcript.addChild(component);
    this.tui.requestRender();
  }

  /** Removes a component and the spacer before it. */
  #remove(component: Component): void {
    const children = this.transcript.children;
    const at = children.indexOf(component);
    if (at < 0) return;
    const before = children[at - 1];
    this.transcript.removeChild(component);
    if (before instanceof Spacer) this.transcript.removeChild(before);
    this.tui.requestRender();
  }

  /** The welcome banner, through the session-start UI event so extensions can replace it. */
  #welcome(): Component {
    return this.uiEvents.create(
      UI_EVENTS.sessionStart,
      this.#welcomeData(),
      () => new Welcome(this.#welcomeData(), this.theme),
    );
  }

  #welcomeData() {
    const provider = this.agent.config.provider;
    return {
      version: VERSION,
      cwd: this.controller.cwd,
      model: `${this.controller.model.alias} (${provider.model}${
        provider.reasoning === "off" ? "" : `, thinking ${provider.reasoning}`
      })`,
      hint:
        "enter sends (steers a running turn) · alt+enter queues · esc interrupts · ctrl+p model · /help",
      loaded: this.#loaded(),
    };
  }

  /** The start-up header's list of what was loaded: context files and extensions. */
  #loaded(): string[] {
    const lines: string[] = [];
    const files = this.controller.contextFiles.map((path) => shortPath(path, this.controller.cwd));
    if (files.length) lines.push(`context ${files.join(", ")}`);
    const { skills, templates } = this.controller.resources;
    if (skills.length) lines.push(`skills ${fewNames(skills.map((s) => s.name))}`);
    if (templates.length) lines.push(`prompts ${fewNames(templates.map((t) => `/${t.name}`))}`);
    const extensions = this.controller.extensions?.loaded ?? [];
    if (extensions.length) {
      lines.push(
        `extensions ${
          extensions.map((e) => e.enabled ? e.name : `${e.name} (disabled)`).join(", ")
        }`,
      );
    }
    return lines;
  }

  #updateFooter(): void {
    const state = this.controller.state();
    const usage = state.usage;
    const provider = this.agent.config.provider;
    const data: Parameters<Footer["update"]>[0] = {
      cwd: this.controller.cwd,
      session: state.sessionName,
      model: state.model.alias,
      thinking: state.model.reasoning,
      tokensIn: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
      tokensOut: usage.outputTokens,
    };
    if (this.#branch) data.branch = this.#branch;
    if (state.cost !== undefined) data.cost = state.cost;
    // Totals are the session's; the context is the active branch's.
    const context = estimateContextTokens(this.agent.conversation.messages);
    const window = provider.contextWindow;
    data.contextPercent = window ? Math.round(100 * context / window) : undefined;
    data.contextTokens = window ? undefined : context;
    this.#footer.update(data);
    this.tui.requestRender();
  }
}

/** Up to five names, then how many more: a thousand skills must not fill the header. */
function fewNames(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(", ");
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}
