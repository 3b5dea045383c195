/**
 * Loads extensions and keeps what they registered, isolating each one: an
 * extension that throws is reported and disabled while panto keeps running.
 *
 * @module
 */
import { basename, extname } from "node:path";
import { pathToFileURL } from "node:url";
import { type Message, ResultParts, type Tool, type ToolOutput } from "@panto/lib";
import { type Component, matchesKey } from "@panto/tui";
import { UI_EVENTS, type UiEvent, type UiEventHandler, type UiEvents } from "../chat/ui_events.ts";
import type {
  ExtensionCommand,
  ExtensionContext,
  KeybindingHandler,
  NotifyLevel,
  PantoApi,
} from "./extension_api.ts";
import { errorMessage } from "../shared/error_message.ts";

/** What the app gives the {@linkcode ExtensionHost}. */
export interface ExtensionHostOptions {
  /** panto's version, shown to extensions. */
  version: string;
  /** The working directory (absolute). */
  cwd: string;
  /** The mode panto runs in. */
  mode: PantoApi["mode"];
  /** The app's UI event hub; extension handlers are added to it. */
  uiEvents: UiEvents;
  /** Registers a tool with the agent; throws (ToolRegistrationError) on a bad or taken name. */
  registerTool(tool: Tool): void;
  /** Names of the built-in slash commands (without "/"), which extensions may not take. */
  reservedCommands: readonly string[];
  /**
   * The app's side of an {@linkcode ExtensionContext}, asked for each time
   * an extension needs it. `getConversation` may return the live messages:
   * the host hands extensions a frozen copy.
   */
  context(): ExtensionContext;
  /** Shows a load or runtime failure (transcript or stderr). */
  report(message: string): void;
  /** Imports a module by URL; tests substitute it. Default: dynamic `import()`. */
  importModule?(url: string): Promise<unknown>;
  /** How long an extension's default function may take (ms); default 10000. */
  loadTimeoutMs?: number;
}

/** An extension that has not finished loading by then is reported and disabled, so start-up goes on. */
const DEFAULT_LOAD_TIMEOUT_MS = 10_000;

/** Settles like `promise`, or rejects with `reason` after `ms` (the timer never outlives it). */
function withinTime<T>(promise: Promise<T>, ms: number, reason: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(reason)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The state of one extension, as {@linkcode ExtensionHost.loaded} lists it. */
export interface LoadedExtension {
  /** Its name: the file name without the extension (made unique with "-2", "-3"…). */
  readonly name: string;
  /** The module's absolute path. */
  readonly path: string;
  /** False once it failed to load or was disabled. */
  readonly enabled: boolean;
  /** Why it is disabled. */
  readonly error?: string;
}

/** A slash command an extension registered, as listed for `/help` and completion. */
export interface ExtensionCommandInfo {
  /** The command's one-line description. */
  readonly description: string;
  /** The name of the extension that registered it. */
  readonly extension: string;
}

/** A keybinding an extension registered, as listed for `/help`. */
export interface ExtensionKeybindingInfo {
  /** The key specs ("ctrl+shift+b"). */
  readonly keys: readonly string[];
  /** What it does, when the extension said. */
  readonly description?: string;
  /** The name of the extension that registered it. */
  readonly extension: string;
}

/** Names panto fires itself; extensions may listen to them but not emit them. */
const BUILTIN_EVENT_NAMES: ReadonlySet<string> = new Set(Object.values(UI_EVENTS));

const COMMAND_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** One extension's bookkeeping. */
class ExtensionState implements LoadedExtension {
  enabled = true;
  error?: string;
  /** Tools wait until the load succeeds: the agent cannot unregister them on a rollback. */
  loading = true;
  readonly pendingTools: Tool[] = [];
  readonly unsubscribes: Set<() => void> = new Set();
  readonly url: string;

  constructor(readonly name: string, readonly path: string) {
    this.url = pathToFileURL(path).href;
  }
}

interface Binding {
  readonly keys: readonly string[];
  readonly handler: KeybindingHandler;
  readonly description: string | undefined;
  readonly owner: ExtensionState;
}

interface CommandEntry extends ExtensionCommandInfo {
  readonly command: ExtensionCommand;
  readonly owner: ExtensionState;
}

/**
 * Loads extension modules, gives each its own {@linkcode PantoApi}, and
 * keeps their commands, keybindings and UI handlers. A command, keybinding,
 * UI handler or component of an extension that throws is reported and the
 * extension disabled: its commands, keys and handlers are removed, and its
 * tools answer with an error.
 *
 * @example
 * ```ts ignore
 * import { UiEvents } from "../chat/ui_events.ts";
 * import { ExtensionHost } from "./extension_host.ts";
 * const host = new ExtensionHost({
 *   version: "0.1.0",
 *   cwd: Deno.cwd(),
 *   mode: "interactive",
 *   uiEvents: new UiEvents(),
 *   registerTool: (tool) => agent.registerTool(tool),
 *   reservedCommands: ["model", "compact", "help", "quit"],
 *   context: () => ({ cwd: Deno.cwd(), getConversation: () => agent.conversation.messages, notify, sendUserMessage, select: () => Promise.resolve(null) }),
 *   report: (message) => notify(message, "error"),
 * });
 * await host.load(["/home/ada/.panto/extensions/word_count.ts"]);
 * await host.runCommand("wc", "");
 * ```
 */
export class ExtensionHost {
  readonly #options: ExtensionHostOptions;
  readonly #extensions: ExtensionState[] = [];
  readonly #commands = new Map<string, CommandEntry>();
  #bindings: Binding[] = [];

  /**
   * Creates a host with nothing loaded.
   *
   * @param options The app's hooks.
   */
  constructor(options: ExtensionHostOptions) {
    this.#options = options;
  }

  /** Every extension {@linkcode load} was given, in load order, with its state. */
  get loaded(): readonly LoadedExtension[] {
    return this.#extensions.map((state) => ({
      name: state.name,
      path: state.path,
      enabled: state.enabled,
      ...(state.error === undefined ? {} : { error: state.error }),
    }));
  }

  /**
   * Loads extension modules one after another, in the given order. A module
   * that cannot be imported, has no function as default export, or throws
   * (or rejects) while loading is reported, and whatever it registered is
   * dropped; the others load regardless.
   *
   * @param paths Absolute paths of `.ts`/`.js` modules (see `discoverExtensions`).
   */
  async load(paths: readonly string[]): Promise<void> {
    for (const path of paths) await this.#loadOne(path);
  }

  /**
   * Unloads every extension for `/reload`: their commands, keybindings and
   * UI handlers are removed at once and their tools refuse to run (the
   * caller unregisters them). Code an extension left running (a timer, a
   * server) cannot be stopped from here and goes on.
   *
   * @example
   * ```ts ignore
   * host.unload();
   * console.assert(host.commands().size === 0);
   * ```
   */
  unload(): void {
    for (const state of this.#extensions) {
      state.enabled = false;
      state.error = "it was unloaded by /reload";
      this.#removeRegistrations(state);
    }
  }

  /** The commands of enabled extensions, by name (without "/"). */
  commands(): ReadonlyMap<string, ExtensionCommandInfo> {
    return new Map(
      [...this.#commands].map((
        [name, entry],
      ) => [name, { description: entry.description, extension: entry.extension }]),
    );
  }

  /** The keybindings of enabled extensions, in registration order. */
  keybindings(): readonly ExtensionKeybindingInfo[] {
    return this.#bindings.map((binding) => ({
      keys: binding.keys,
      extension: binding.owner.name,
      ...(binding.description === undefined ? {} : { description: binding.description }),
    }));
  }

  /**
   * Runs an extension's slash command. A command that throws or rejects is
   * reported and its extension disabled.
   *
   * @param name The command name without "/".
   * @param args The rest of the line after the name, trimmed.
   * @returns False when no enabled extension has that command.
   */
  async runCommand(name: string, args: string): Promise<boolean> {
    const entry = this.#commands.get(name);
    if (entry === undefined) return false;
    await this.#guard(
      entry.owner,
      `command /${name}`,
      () => entry.command.run(args, this.#context()),
    );
    return true;
  }

  /**
   * Runs the first extension keybinding that matches a key sequence. The
   * handler is not awaited; if it throws or rejects, its extension is
   * reported and disabled.
   *
   * @param data One input sequence, as the terminal sent it.
   * @returns True when a keybinding matched (the key is consumed).
   */
  handleKey(data: string): boolean {
    const binding = this.#bindings.find((b) => b.keys.some((spec) => matchesKey(data, spec)));
    if (binding === undefined) return false;
    void this.#guard(
      binding.owner,
      `keybinding ${binding.keys.join(", ")}`,
      () => binding.handler(this.#context()),
    );
    return true;
  }

  /**
   * Attributes an uncaught error or unhandled rejection to the extension
   * whose module appears in its stack, and disables that extension. The
   * app calls this from its global `error`/`unhandledrejection` listeners
   * and cancels the event when it returns true.
   *
   * @param error The thrown value.
   * @returns True when the error came from an extension.
   */
  handleUncaughtError(error: unknown): boolean {
    // The topmost frame decides when several extensions are on the stack.
    let owner: ExtensionState | undefined;
    let topmost = Infinity;
    for (const state of this.#extensions) {
      const at = stackIndex(error, state);
      if (at !== -1 && at < topmost) [owner, topmost] = [state, at];
    }
    if (owner === undefined) return false;
    this.#disable(owner, `it threw outside a handler: ${describeError(error, owner)}`);
    return true;
  }

  async #loadOne(path: string): Promise<void> {
    const state = new ExtensionState(this.#uniqueName(path), path);
    this.#extensions.push(state);
    let module: unknown;
    try {
      module = await (this.#options.importModule ?? importByUrl)(state.url);
    } catch (error) {
      return this.#failLoad(
        state,
        `Extension "${state.name}" (${path}) could not be imported: ${errorMessage(error)}`,
      );
    }
    const extension = (module as { default?: unknown } | null)?.default;
    if (typeof extension !== "function") {
      return this.#failLoad(
        state,
        `${path}: the default export must be a function (panto) => {…}, got ${typeName(extension)}`,
      );
    }
    try {
      await withinTime(
        Promise.resolve(extension(this.#apiFor(state))),
        this.#options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS,
        `it did not finish loading within ${
          this.#options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS
        } ms`,
      );
    } catch (error) {
      return this.#failLoad(
        state,
        `Extension "${state.name}" (${path}) threw while loading: ${
          describeError(error, state)
        }; nothing it registered was kept`,
      );
    }
    state.loading = false;
    for (const tool of state.pendingTools.splice(0)) this.#registerTool(state, tool);
  }

  #failLoad(state: ExtensionState, message: string): void {
    state.enabled = false;
    state.error = message;
    state.pendingTools.length = 0;
    this.#removeRegistrations(state);
    this.#options.report(message);
  }

  /** Disables an enabled extension for a runtime failure and reports it once. */
  #disable(state: ExtensionState, reason: string): void {
    if (!state.enabled) return;
    state.enabled = false;
    state.error = reason;
    this.#removeRegistrations(state);
    this.#options.report(
      `Extension "${state.name}" was disabled: ${reason}. Its commands, keybindings and UI handlers are removed; fix it and /reload (or restart panto).`,
    );
  }

  #removeRegistrations(state: ExtensionState): void {
    for (const [name, entry] of this.#commands) {
      if (entry.owner === state) this.#commands.delete(name);
    }
    this.#bindings = this.#bindings.filter((binding) => binding.owner !== state);
    for (const unsubscribe of [...state.unsubscribes]) unsubscribe();
  }

  #uniqueName(path: string): string {
    const stem = basename(path, extname(path));
    const taken = (name: string) => this.#extensions.some((state) => state.name === name);
    let name = stem;
    for (let n = 2; taken(name); n++) name = `${stem}-${n}`;
    return name;
  }

  /** Runs extension code; a throw or rejection disables the extension. */
  async #guard(
    state: ExtensionState,
    what: string,
    action: () => void | Promise<void>,
  ): Promise<void> {
    try {
      // A synchronous throw is caught before the first await, so the
      // extension is disabled by the time a synchronous caller continues.
      await action();
    } catch (error) {
      this.#disable(state, `${what} threw: ${describeError(error, state)}`);
    }
  }

  #context(): ExtensionContext {
    const app = this.#options.context();
    return {
      cwd: app.cwd,
      getConversation: () => snapshotConversation(app.getConversation()),
      notify: (text, level) => app.notify(text, level),
      sendUserMessage: (text) => app.sendUserMessage(text),
      select: (title, items) => app.select(title, items),
    };
  }

  #apiFor(state: ExtensionState): PantoApi {
    const options = this.#options;
    const api: PantoApi = {
      version: options.version,
      cwd: options.cwd,
      mode: options.mode,
      registerTool: (tool) => this.#acceptTool(state, tool),
      registerCommand: (name, command) => this.#addCommand(state, name, command),
      registerKeybinding: (keys, handler, description) =>
        this.#addKeybinding(state, keys, handler, description),
      on: (event: string, handler: UiEventHandler<never>) => this.#subscribe(state, event, handler),
      emit: (event, data) => this.#emit(state, event, data),
      getConversation: () => snapshotConversation(options.context().getConversation()),
      notify: (text: string, level?: NotifyLevel) => {
        if (state.enabled) options.context().notify(text, level);
      },
    };
    return Object.freeze(api);
  }

  #acceptTool(state: ExtensionState, tool: Tool): void {
    assertTool(tool);
    if (!state.enabled) return;
    if (state.loading) state.pendingTools.push(tool);
    else this.#registerTool(state, tool);
  }

  /** Registers a tool that refuses to run once its extension is disabled. */
  #registerTool(state: ExtensionState, tool: Tool): void {
    const guarded: Tool = {
      decl: tool.decl,
      execute: (args, ctx): ToolOutput | Promise<ToolOutput> =>
        state.enabled
          ? tool.execute(args, ctx)
          : ResultParts.error(`extension ${state.name} is disabled: ${state.error}`),
    };
    try {
      this.#options.registerTool(guarded);
    } catch (error) {
      this.#options.report(
        `Extension "${state.name}": tool ${JSON.stringify(tool.decl.name)} was not registered: ${
          errorMessage(error)
        }`,
      );
    }
  }

  #addCommand(state: ExtensionState, name: string, command: ExtensionCommand): void {
    if (typeof name !== "string" || !COMMAND_NAME.test(name)) {
      throw new TypeError(
        `Command name ${
          JSON.stringify(name)
        } is invalid: use lower-case letters, digits and "-", without the leading "/" (e.g. "word-count")`,
      );
    }
    if (typeof command?.run !== "function" || typeof command.description !== "string") {
      throw new TypeError(
        `Command /${name} must be an object { description: string, run(args, ctx) }`,
      );
    }
    if (!state.enabled) return;
    const owner = this.#commands.get(name)?.extension;
    const clash = this.#options.reservedCommands.includes(name)
      ? "it is a built-in command"
      : owner === undefined
      ? undefined
      : `extension "${owner}" already registered it`;
    if (clash !== undefined) {
      this.#options.report(
        `Extension "${state.name}": command /${name} was not registered: ${clash}; pick another name`,
      );
      return;
    }
    this.#commands.set(name, {
      description: command.description,
      extension: state.name,
      command,
      owner: state,
    });
  }

  #addKeybinding(
    state: ExtensionState,
    keys: string | readonly string[],
    handler: KeybindingHandler,
    description: string | undefined,
  ): void {
    const specs = typeof keys === "string" ? [keys] : [...keys];
    if (specs.length === 0) throw new TypeError("registerKeybinding needs at least one key spec");
    for (const spec of specs) assertKeySpec(spec);
    if (typeof handler !== "function") {
      throw new TypeError(`The handler for keybinding ${specs.join(", ")} must be a function`);
    }
    if (!state.enabled) return;
    this.#bindings.push({ keys: specs, handler, description, owner: state });
  }

  #subscribe(state: ExtensionState, event: string, handler: UiEventHandler<never>): () => void {
    assertEventName(event);
    if (typeof handler !== "function") {
      throw new TypeError(`The handler for UI event "${event}" must be a function`);
    }
    if (!state.enabled) return () => {};
    const off = this.#options.uiEvents.on(
      event,
      this.#isolate(state, event, handler as UiEventHandler<unknown>),
    );
    const unsubscribe = () => {
      off();
      state.unsubscribes.delete(unsubscribe);
    };
    state.unsubscribes.add(unsubscribe);
    return unsubscribe;
  }

  #emit(state: ExtensionState, event: string, data: unknown): void {
    assertEventName(event);
    if (BUILTIN_EVENT_NAMES.has(event)) {
      throw new TypeError(
        `UI event "${event}" is fired by panto itself; emit a name of your own (e.g. "${state.name}:${event}")`,
      );
    }
    if (state.enabled) this.#options.uiEvents.emit(event, data);
  }

  /**
   * Wraps a UI handler: it sees a private view of the event whose choice is
   * applied only if it returns normally, so a throw discards its changes
   * and disables the extension without reaching UiEvents' own error path.
   * The component it chooses is guarded the same way while rendering.
   */
  #isolate(
    state: ExtensionState,
    eventName: string,
    handler: UiEventHandler<unknown>,
  ): UiEventHandler<unknown> {
    let warnedAboutPromise = false;
    return (event) => {
      if (!state.enabled) return;
      // Applied only after the handler returns: a throw leaves no trace,
      // and choices made after an await come too late to count.
      const pending: { component?: Component } = {};
      const view: UiEvent<unknown> = {
        name: event.name,
        data: event.data,
        getComponent: () => ("component" in pending ? pending.component : event.getComponent()),
        setComponent: (component) => {
          assertComponent(component, eventName);
          pending.component = component;
        },
      };
      let result: unknown;
      try {
        result = handler(view);
      } catch (error) {
        this.#disable(state, `its "${eventName}" UI handler threw: ${describeError(error, state)}`);
        return;
      }
      if (result instanceof Promise) {
        if (!warnedAboutPromise) {
          warnedAboutPromise = true;
          this.#options.report(
            `Extension "${state.name}": its "${eventName}" UI handler returned a promise; UI handlers must be synchronous (the component paints right after), so choices made after an await are ignored`,
          );
        }
        result.catch((error: unknown) =>
          this.#disable(
            state,
            `its "${eventName}" UI handler rejected: ${describeError(error, state)}`,
          )
        );
      }
      if (pending.component !== undefined) {
        const previous = event.getComponent();
        event.setComponent(
          new GuardedComponent(pending.component, previous, (error) =>
            this.#disable(
              state,
              `a component it chose for "${eventName}" threw: ${describeError(error, state)}`,
            )),
        );
      }
    };
  }
}

/**
 * An extension's component, shielded: if it throws, the extension is
 * disabled and the component it replaced (if any) is shown instead.
 */
class GuardedComponent implements Component {
  readonly #inner: Component;
  readonly #fallback: Component | undefined;
  readonly #onFailure: (error: unknown) => void;
  #failed = false;
  /** The frame after a failure differs from the last one from its first line. */
  #switched = false;
  declare handleInput?: (data: string) => void;

  constructor(inner: Component, fallback: Component | undefined, onFailure: (e: unknown) => void) {
    this.#inner = inner;
    this.#fallback = fallback;
    this.#onFailure = onFailure;
    if (inner.handleInput !== undefined) {
      this.handleInput = (data) => this.#attempt(() => inner.handleInput?.(data), undefined);
    }
  }

  get focused(): boolean {
    return this.#inner.focused ?? false;
  }

  set focused(value: boolean) {
    this.#inner.focused = value;
  }

  get wantsKeyRelease(): boolean {
    return this.#inner.wantsKeyRelease ?? false;
  }

  render(width: number): readonly string[] {
    const lines = this.#attempt(() => this.#inner.render(width), undefined);
    return lines ?? this.#fallback?.render(width) ?? [];
  }

  firstLineChanged(): number | null {
    const line = this.#attempt(() => this.#inner.firstLineChanged(), undefined);
    if (line !== undefined) return line;
    if (this.#switched) {
      this.#switched = false;
      return 0;
    }
    return this.#fallback?.firstLineChanged() ?? null;
  }

  invalidate(): void {
    this.#attempt(() => this.#inner.invalidate(), undefined);
    this.#fallback?.invalidate();
  }

  /** Runs inner code unless it failed before; returns `failed` after a failure. */
  #attempt<T, F>(action: () => T, failed: F): T | F {
    if (this.#failed) return failed;
    try {
      return action();
    } catch (error) {
      this.#failed = true;
      this.#switched = true;
      this.#onFailure(error);
      return failed;
    }
  }
}

function importByUrl(url: string): Promise<unknown> {
  return import(url);
}

/** A deep-frozen copy, so extension code can neither see later edits nor make any. */
function snapshotConversation(messages: readonly Message[]): readonly Message[] {
  return deepFreeze(structuredClone(messages));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function assertTool(tool: unknown): asserts tool is Tool {
  const candidate = tool as Partial<Tool> | null | undefined;
  if (typeof candidate?.decl?.name !== "string" || typeof candidate.execute !== "function") {
    throw new TypeError(
      `registerTool needs { decl: { name, description, inputSchema }, execute(args, ctx) }, got ${
        typeName(tool)
      }`,
    );
  }
}

function assertKeySpec(spec: unknown): void {
  if (typeof spec !== "string") {
    throw new TypeError(
      `A key spec must be a string such as "ctrl+shift+p", got ${typeName(spec)}`,
    );
  }
  try {
    // Parsing happens before matching; "" matches nothing.
    matchesKey("", spec);
  } catch (error) {
    throw new TypeError(errorMessage(error));
  }
}

function assertEventName(event: unknown): asserts event is string {
  if (typeof event !== "string" || event === "") {
    throw new TypeError(`A UI event name must be a non-empty string, got ${JSON.stringify(event)}`);
  }
}

function assertComponent(component: unknown, eventName: string): void {
  const candidate = component as Partial<Component> | null | undefined;
  if (
    typeof candidate?.render !== "function" || typeof candidate.firstLineChanged !== "function" ||
    typeof candidate.invalidate !== "function"
  ) {
    throw new TypeError(
      `setComponent for "${eventName}" needs a Component with render(width), firstLineChanged() and invalidate(), got ${
        typeName(component)
      }`,
    );
  }
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}

/** The message plus, when the stack shows it, where in the extension it was thrown. */
function describeError(error: unknown, state: ExtensionState): string {
  const where = locationIn(error, state);
  return where === undefined ? errorMessage(error) : `${errorMessage(error)} (at ${where})`;
}

/** `path:line:column` of the first stack frame inside the extension's module. */
function locationIn(error: unknown, state: ExtensionState): string | undefined {
  const at = stackIndex(error, state);
  if (at === -1) return undefined;
  const stack = (error as Error).stack ?? "";
  const position = /^:(\d+):(\d+)/.exec(stack.slice(at + state.url.length));
  return position === null ? state.path : `${state.path}:${position[1]}:${position[2]}`;
}

/** Where the extension's module first appears in the error's stack, or -1. */
function stackIndex(error: unknown, state: ExtensionState): number {
  const stack = error instanceof Error ? error.stack : undefined;
  return stack === undefined ? -1 : stack.indexOf(`${state.url}:`);
}
