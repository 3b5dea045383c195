import {
  Agent,
  type AgentEvent,
  estimateContextTokens,
  messageText,
  Pricing,
  PricingRegistry,
  ProviderError,
  type ReasoningLevel,
  type Session,
} from "@panto/lib";
import {
  type Component,
  Container,
  Editor,
  Footer,
  Loader,
  sanitizeTerminalText,
  type SelectItem,
  SelectList,
  Spacer,
  Text,
  type Theme,
  type TUI,
  UI_EVENTS,
  UiEvents,
  Welcome,
} from "@panto/tui";
import type { App } from "../app_setup.ts";
import { expandAttachments } from "../attachments.ts";
import { agentConfig } from "../config/agent_config.ts";
import { resolveModel } from "../config/model_registry.ts";
import { VERSION } from "../version.ts";
import { ChatAutocomplete } from "./autocomplete.ts";
import { gitBranch } from "./git_branch.ts";
import { runShellCommand } from "./shell_command.ts";
import { keyVariables } from "../tools/child_env.ts";
import { type SlashCommand, slashCommands } from "./slash_commands.ts";
import { TranscriptView } from "./transcript_view.ts";
import { TurnRenderer } from "./turn_renderer.ts";
import { errorMessage, turnFailureMessage } from "../error_message.ts";

/** How long a second ctrl+c counts as "quit" (ms). */
const DOUBLE_PRESS_MS = 1500;

/** Options for {@linkcode ChatApp}. */
export interface ChatAppOptions {
  /** The wired app (config, store, agent). */
  app: App;
  /** The running engine. */
  tui: TUI;
  /** Colours. */
  theme: Theme;
  /** Called when the user quits. */
  onQuit: () => void;
}

/**
 * The interactive chat: transcript, loader, editor and footer on a
 * {@linkcode TUI}; routes the agent's events to components; slash
 * commands, `!shell`, queued prompts, abort and quit keys.
 */
export class ChatApp {
  /** The wired app; its `agent` is replaced by /new and /resume. */
  readonly app: App;
  /** The engine the chat draws on. */
  readonly tui: TUI;
  /** Colours. */
  readonly theme: Theme;
  /** UI events extensions hook into. */
  readonly uiEvents: UiEvents;
  /** The conversation as shown. */
  readonly transcript = new Container();
  /** The input editor. */
  readonly editor: Editor;
  /** The built-in slash commands, by name. */
  readonly commands: Map<string, SlashCommand>;
  /** Extension commands, consulted after the built-ins. */
  extensionCommand: ((name: string, args: string) => Promise<boolean>) | undefined;
  /** Extension keys, consulted before the app's. */
  extensionKey: ((data: string) => boolean) | undefined;
  #view: TranscriptView;
  #status = new Container();
  #footer: Footer;
  #loader: Loader | undefined;
  #running: { cancel(): void } | undefined;
  #queue: string[] = [];
  /** Turns, shell commands and compactions not yet finished (a quit waits for them). */
  #work = new Set<Promise<void>>();
  #pendingShell: string[] = [];
  #pendingName: string | undefined;
  #lastCtrlC = 0;
  readonly #onQuit: () => void;
  readonly #defaultPrices = PricingRegistry.withDefaults();
  readonly #branch: string | undefined;

  /**
   * Puts the transcript, status line, editor and footer on the engine and
   * takes its input.
   *
   * @param options The app, engine, theme and quit callback.
   */
  constructor(options: ChatAppOptions) {
    this.app = options.app;
    this.tui = options.tui;
    this.theme = options.theme;
    this.#onQuit = options.onQuit;
    this.uiEvents = new UiEvents({
      onError: (error, name) =>
        this.notify(`A handler of the "${name}" UI event failed: ${errorMessage(error)}`, "error"),
      mount: (component) => this.#append(component),
    });
    this.#view = new TranscriptView(this.uiEvents, this.theme);
    this.commands = slashCommands();
    this.editor = new Editor({
      theme: this.theme,
      keybindings: this.tui.keybindings,
      requestRender: () => this.tui.requestRender(),
      onSubmit: (text) => this.submit(text),
      autocomplete: new ChatAutocomplete(this.app.cwd, () => this.#commandNames()),
      onError: (error) => this.notify(errorMessage(error), "error"),
    });
    this.#footer = new Footer({}, this.theme);
    this.#branch = gitBranch(this.app.cwd);
    this.tui.addChild(this.transcript);
    this.tui.addChild(this.#status);
    this.tui.addChild(this.editor);
    this.tui.addChild(this.#footer);
    this.tui.setFocus(this.editor);
    this.tui.onInput((data) => this.#handleKey(data));
  }

  /** The current agent (replaced by /new and /resume). */
  get agent(): Agent {
    return this.app.agent;
  }

  /** Whether a turn is running. */
  get busy(): boolean {
    return this.#running !== undefined;
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
    if (this.app.resumed) {
      for (const component of this.#view.history(this.agent.conversation.messages)) {
        this.#append(component);
      }
      this.notify(`Resumed session ${this.agent.sessionId}`, "info");
    }
    this.#updateFooter();
  }

  /** Handles a submitted line: a slash command, `!shell`, or a prompt (queued while busy). */
  submit(text: string): void {
    const trimmed = text.trim();
    if (!trimmed) return;
    if (trimmed.startsWith("/") && !trimmed.startsWith("//")) {
      void this.#runCommand(trimmed);
      return;
    }
    if (this.busy) {
      this.#queue.push(trimmed);
      this.notify(`Queued: ${oneLine(trimmed)}`, "info");
      return;
    }
    if (trimmed.startsWith("!")) {
      void this.#track(this.#shell(trimmed.slice(1).trim()));
      return;
    }
    void this.#track(this.#turn(trimmed));
  }

  /**
   * Resolves once no turn, shell command or compaction is left running
   * (after a quit, an interrupted turn still saves its partial answer).
   */
  async settled(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  /**
   * Shows a one-line notice in the transcript. Notices carry provider and
   * tool error text and extensions' strings: terminal controls are stripped.
   */
  notify(text: string, level: "info" | "warning" | "error" = "info"): void {
    const color = level === "error" ? "error" : level === "warning" ? "warning" : "muted";
    const safe = sanitizeTerminalText(text);
    this.#append(new Text(safe, { style: (line) => this.theme.fg(color, line) }));
  }

  /** Shows a picker overlay; resolves with the chosen value or `null` on escape. */
  pick<T>(title: string, items: readonly SelectItem<T>[], initialIndex = 0): Promise<T | null> {
    return new Promise((resolve) => {
      const overlay = { close: () => {} };
      const list = new SelectList(items, {
        theme: this.theme,
        title,
        keybindings: this.tui.keybindings,
        initialIndex,
        onSelect: (item) => {
          overlay.close();
          resolve(item.value);
        },
        onCancel: () => {
          overlay.close();
          resolve(null);
        },
      });
      overlay.close =
        this.tui.showOverlay(list, { anchor: "center", width: "80%", maxHeight: "70%" }).close;
    });
  }

  /** Switches to another session (resume) or a new one. */
  async switchSession(session: Session, fresh: boolean): Promise<void> {
    const conversation = await session.load();
    // A name given before the first answer was meant for the session left behind.
    this.#pendingName = undefined;
    const agent = new Agent({ config: this.agent.config, session, conversation });
    for (const tool of this.app.tools) agent.registerTool(tool);
    for (const tool of this.app.extraTools) agent.registerTool(tool);
    const systemPrompt = this.app.systemPrompt;
    if (agent.conversation.systemPrompt() !== systemPrompt) {
      await agent.setSystemPrompt(systemPrompt);
    }
    this.app.agent = agent;
    this.transcript.clear();
    // The old conversation stays in the terminal's history instead of being drawn over.
    this.tui.keepScreenInHistory();
    this.#view = new TranscriptView(this.uiEvents, this.theme, this.#view.showThinking);
    this.#append(this.#welcome());
    if (!fresh) {
      for (const component of this.#view.history(conversation.messages)) this.#append(component);
      this.notify(`Resumed session ${session.id}`, "info");
    }
    this.#updateFooter();
  }

  /** Switches the model (and keeps the reasoning level unless given). */
  setModel(alias: string, reasoning?: ReasoningLevel): void {
    const selection = resolveModel(this.app.config, alias, {
      thinking: reasoning ?? this.agent.config.provider.reasoning,
    });
    this.app.selection = selection;
    this.agent.setConfig(agentConfig(this.app.config, selection, this.agent.config.maxTurns));
    this.#updateFooter();
  }

  /** Runs a compaction with the loader shown. */
  async compact(instructions: string | undefined): Promise<void> {
    if (!this.ensureIdle("compacting")) return;
    await this.#track(this.#compact(instructions));
  }

  async #compact(instructions: string | undefined): Promise<void> {
    const abort = new AbortController();
    this.#startLoader("Compacting", { cancel: () => abort.abort() });
    try {
      const result = await this.agent.compact({
        ...(instructions ? { instructions } : {}),
        signal: abort.signal,
      });
      if (result) {
        this.#append(
          this.#view.compaction(result.summary, result.tokensBefore, result.tokensAfter),
        );
      } else {
        this.notify("Nothing to compact yet.", "info");
      }
    } catch (error) {
      this.notify(`Compaction failed: ${errorMessage(error)}`, "error");
    } finally {
      this.#stopLoader();
      this.#updateFooter();
    }
    await this.#afterTurn();
  }

  /** Names the session now, or after its first answer when nothing is saved yet. */
  async nameSession(name: string): Promise<void> {
    if (!this.agent.session.persisted) {
      this.#pendingName = name;
      this.notify(
        `The session will be named "${name}" once it is saved (after the first answer).`,
        "info",
      );
      return;
    }
    await this.app.store.rename(this.agent.sessionId, name);
    this.notify(`Session named "${name}".`, "info");
  }

  /** Shows or hides thinking blocks. */
  toggleThinking(): void {
    this.#view.setShowThinking(!this.#view.showThinking);
    this.notify(this.#view.showThinking ? "Thinking shown." : "Thinking hidden.", "info");
  }

  /** Copies text to the system clipboard through the terminal (OSC 52). */
  copyToClipboard(text: string): void {
    this.tui.terminal.write(`\x1b]52;c;${new TextEncoder().encode(text).toBase64()}\x07`);
  }

  /** The text of the last assistant message. */
  lastAnswer(): string | undefined {
    const last = this.agent.conversation.messages.findLast((m) =>
      m.role === "assistant" && messageText(m).trim()
    );
    return last ? messageText(last) : undefined;
  }

  /** Quits: drops queued prompts and aborts a running turn (see {@linkcode ChatApp.settled}). */
  quit(): void {
    this.#queue.length = 0;
    this.#running?.cancel();
    this.#onQuit();
  }

  #handleKey(data: string): boolean {
    const keys = this.tui.keybindings;
    if (keys.matches(data, "app.interrupt") && this.#running && !this.editor.showingSuggestions) {
      this.#running.cancel();
      return true;
    }
    if (keys.matches(data, "app.clear")) {
      const now = Date.now();
      if (this.editor.getText() !== "") {
        this.editor.setText("");
        this.#lastCtrlC = now;
      } else if (now - this.#lastCtrlC < DOUBLE_PRESS_MS) {
        this.quit();
      } else {
        this.#lastCtrlC = now;
        this.notify("Press ctrl+c again to quit.", "info");
      }
      return true;
    }
    if (keys.matches(data, "app.exit") && this.editor.getText() === "") {
      this.quit();
      return true;
    }
    // Extensions come after the keys that must always work (interrupt, clear, quit).
    if (this.extensionKey?.(data)) {
      this.tui.requestRender(true);
      return true;
    }
    if (keys.matches(data, "app.expandTools")) {
      this.#view.setExpanded(!this.#view.expanded);
      return true;
    }
    if (keys.matches(data, "app.toggleThinking")) {
      this.toggleThinking();
      return true;
    }
    return false;
  }

  async #turn(text: string): Promise<void> {
    const shell = this.#pendingShell.splice(0);
    const prompt = shell.length ? `${shell.join("\n\n")}\n\n${text}` : text;
    this.#append(this.#view.user(text));
    // Busy from here on: a prompt submitted while files are attached is queued, not run alongside.
    const abort = new AbortController();
    this.#startLoader("Working", { cancel: () => abort.abort() });
    try {
      await this.#attachAndRun(prompt, abort.signal);
    } finally {
      this.#stopLoader();
      this.#updateFooter();
    }
    await this.#afterTurn();
  }

  async #attachAndRun(prompt: string, signal: AbortSignal): Promise<void> {
    let expanded;
    try {
      expanded = await expandAttachments(prompt, this.app.cwd);
    } catch (error) {
      return this.notify(`Could not attach a file: ${errorMessage(error)}`, "error");
    }
    if (expanded.files.length) this.notify(`Attached ${expanded.files.join(", ")}`, "info");
    const sink = {
      append: (c: Component) => this.#append(c),
      remove: (c: Component) => this.#remove(c),
    };
    const renderer = new TurnRenderer(this.#view, sink, (t, l) => this.notify(t, l));
    try {
      const stream = this.agent.run({ text: expanded.text, images: expanded.images }, { signal });
      for await (const event of stream) {
        renderer.handle(event);
        this.#onEvent(event);
        this.tui.requestRender();
      }
      if (stream.state === "aborted") {
        this.notify("Interrupted. The partial answer was kept.", "warning");
      }
    } catch (error) {
      this.notify(failureText(error), "error");
    }
  }

  #onEvent(event: AgentEvent): void {
    if (event.type === "message_complete") this.#updateFooter();
    if (event.type === "tool_dispatch_start") {
      this.#loader?.setMessage(`Running ${sanitizeTerminalText(event.call.name)}`);
    }
    if (event.type === "block_start") {
      this.#loader?.setMessage(event.kind === "thinking" ? "Thinking" : "Working");
    }
  }

  async #afterTurn(): Promise<void> {
    if (this.#pendingName && this.agent.session.persisted) {
      const name = this.#pendingName;
      this.#pendingName = undefined;
      await this.nameSession(name).catch((error) => this.notify(errorMessage(error), "error"));
    }
    const next = this.#queue.shift();
    if (next !== undefined) this.submit(next);
  }

  async #shell(command: string): Promise<void> {
    if (!command) {
      return this.notify(
        "Usage: !command (runs it and adds its output to the next prompt)",
        "info",
      );
    }
    const { component, tool } = this.#view.tool(`shell-${Date.now()}`, "!");
    tool.setArgs({ command });
    tool.setStatus("running");
    this.#append(component);
    const abort = new AbortController();
    this.#startLoader(`Running ${command}`, { cancel: () => abort.abort() });
    try {
      const result = await runShellCommand(
        command,
        this.app.cwd,
        this.app.config.tools.bashTimeoutSeconds,
        abort.signal,
        keyVariables(this.app.config),
      );
      tool.setResult(result.output, result.failed);
      tool.setStatus(result.failed ? "error" : "done");
      this.#pendingShell.push(
        `The user ran \`${command}\`:\n<shell_output>\n${result.output}\n</shell_output>`,
      );
    } catch (error) {
      tool.setResult(errorMessage(error), true);
      tool.setStatus("error");
    } finally {
      this.#stopLoader();
    }
    await this.#afterTurn();
  }

  async #runCommand(line: string): Promise<void> {
    const rawName = line.slice(1).split(/\s+/, 1)[0] ?? "";
    const name = rawName.toLowerCase();
    const args = line.slice(1 + rawName.length).trim();
    const command = this.commands.get(name);
    try {
      if (command) return await command.run(this, args);
      if (await this.extensionCommand?.(name, args)) return;
      this.notify(`Unknown command /${name}. Type /help for the list.`, "warning");
    } catch (error) {
      this.notify(`/${name} failed: ${errorMessage(error)}`, "error");
    }
  }

  /**
   * Keeps `task` in {@linkcode ChatApp.settled}'s sight until it ends; a
   * failure is shown, never left as an unhandled rejection.
   */
  #track(task: Promise<void>): Promise<void> {
    const tracked = task.catch((error) => this.notify(errorMessage(error), "error"))
      .finally(() => this.#work.delete(tracked));
    this.#work.add(tracked);
    return tracked;
  }

  #commandNames(): { name: string; description: string }[] {
    return [...this.commands.entries()].map(([name, c]) => ({ name, description: c.description }))
      .concat(this.app.extensionCommands?.() ?? []);
  }

  #startLoader(message: string, cancellable: { cancel(): void }): void {
    this.#running = cancellable;
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
    this.#running = undefined;
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
    return {
      version: VERSION,
      cwd: this.app.cwd,
      model: `${this.app.selection.alias} (${this.agent.config.provider.model}${
        this.agent.config.provider.reasoning === "off"
          ? ""
          : `, thinking ${this.agent.config.provider.reasoning}`
      })`,
      hint: "enter to send · shift+enter newline · esc interrupts · ctrl+o expands tools · /help",
    };
  }

  #updateFooter(): void {
    const usage = this.agent.conversation.totalUsage();
    const provider = this.agent.config.provider;
    const data: Parameters<Footer["update"]>[0] = {
      cwd: this.app.cwd,
      model: this.app.selection.alias,
      tokensIn: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
      tokensOut: usage.outputTokens,
    };
    if (this.#branch) data.branch = this.#branch;
    // The model in use now: a configured price, else a known one.
    const configured = this.app.selection.pricing;
    const pricing = configured ? new Pricing(configured) : this.#defaultPrices.get(provider.model);
    if (pricing) data.cost = pricing.cost(usage);
    if (provider.contextWindow) {
      data.contextPercent = Math.round(
        100 * estimateContextTokens(this.agent.conversation.messages) / provider.contextWindow,
      );
    }
    this.#footer.update(data);
    this.tui.requestRender();
  }
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}

function failureText(error: unknown): string {
  if (error instanceof ProviderError) {
    // (An auth error's message already says to check the key.)
    const hint = error.kind === "context_overflow" ? " Try /compact." : "";
    // Provider messages often end with a full stop already.
    const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
    return `The request failed (${error.kind}): ${message}${hint}`;
  }
  return turnFailureMessage("The turn failed", error);
}
