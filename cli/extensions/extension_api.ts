/**
 * The types extension authors program against. An extension is a module
 * whose default export is a {@linkcode PantoExtension}: panto calls it once
 * with a {@linkcode PantoApi} of its own.
 *
 * @example A minimal extension
 * ```ts
 * import type { PantoApi } from "@panto/cli";
 * export default (panto: PantoApi) => {
 *   panto.registerCommand("hello", {
 *     description: "Say hello",
 *     run: (args, ctx) => ctx.notify(`hello ${args || "world"}`),
 *   });
 * };
 * ```
 *
 * @module
 */
import type { Message, Tool } from "@panto/lib";
import type { BuiltinUiEvents, UiEventHandler } from "../chat/ui_events.ts";

/** How a notification is shown: plain, highlighted as a warning, or as an error. */
export type NotifyLevel = "info" | "warning" | "error";

/**
 * What a command or keybinding handler receives when it runs.
 *
 * @example Queue a prompt from a command
 * ```ts
 * import type { ExtensionContext } from "@panto/cli";
 * function review(ctx: ExtensionContext): void {
 *   ctx.sendUserMessage(`Review the changes in ${ctx.cwd}`);
 * }
 * console.assert(typeof review === "function");
 * ```
 */
export interface ExtensionContext {
  /** panto's working directory (absolute). */
  readonly cwd: string;
  /** A deep-frozen snapshot of the conversation, oldest message first. */
  getConversation(): readonly Message[];
  /**
   * Shows a message in the transcript (interactive mode), on stderr (print
   * mode), as a `notice` event (RPC mode) or in the editor's chat (ACP
   * mode).
   */
  notify(text: string, level?: NotifyLevel): void;
  /**
   * Queues a prompt as if the user had typed it (interactive, RPC and ACP
   * modes; while a turn runs, it is sent after it).
   */
  sendUserMessage(text: string): void;
  /**
   * Lets the user pick one of `items` in a bordered panel with a filter
   * line, drawn where the editor is (interactive mode). Resolves with the
   * chosen item's value, or `null` on escape and in print, RPC and ACP modes.
   */
  select<T>(
    title: string,
    items: readonly { value: T; label: string; description?: string }[],
  ): Promise<T | null>;
}

/**
 * A slash command: `/name args` in the editor runs `run(args, ctx)`.
 *
 * @example
 * ```ts
 * import type { ExtensionCommand } from "@panto/cli";
 * const shout: ExtensionCommand = {
 *   description: "Repeat the arguments in capitals",
 *   run: (args, ctx) => ctx.notify(args.toUpperCase()),
 * };
 * console.assert(shout.description.length > 0);
 * ```
 */
export interface ExtensionCommand {
  /** One line shown by `/help` and in the command completion list. */
  description: string;
  /**
   * Runs the command.
   *
   * @param args Everything after `/name `, trimmed ("" when none).
   * @param ctx The conversation and the app's notification and prompt queue.
   */
  run(args: string, ctx: ExtensionContext): void | Promise<void>;
}

/** A keybinding handler. */
export type KeybindingHandler = (ctx: ExtensionContext) => void | Promise<void>;

/**
 * What an extension receives. Every extension gets its own instance, so
 * panto knows whose command, key or handler failed and can disable exactly
 * that extension.
 *
 * @example Register a tool, a command, a key and a UI handler
 * ```ts
 * import type { PantoApi } from "@panto/cli";
 * export default (panto: PantoApi) => {
 *   panto.registerTool({
 *     decl: { name: "now", description: "The current time", inputSchema: { type: "object", properties: {} } },
 *     execute: () => [{ type: "text", text: new Date().toISOString() }],
 *   });
 *   panto.registerCommand("count", {
 *     description: "How many messages so far",
 *     run: (_args, ctx) => ctx.notify(`${ctx.getConversation().length} messages`),
 *   });
 *   panto.registerKeybinding("ctrl+shift+t", (ctx) => ctx.sendUserMessage("What time is it?"));
 *   panto.on("tool", (event) => panto.notify(`tool ${event.data.name} started`));
 * };
 * ```
 */
export interface PantoApi {
  /** panto's version, e.g. "0.1.0". */
  readonly version: string;
  /** panto's working directory (absolute). */
  readonly cwd: string;
  /**
   * The mode panto runs in. Print and RPC mode have no commands, keys or
   * transcript; ACP mode (an editor) runs commands typed as prompts but has
   * no keys, and calls the extension once per editor session.
   */
  readonly mode: "interactive" | "print" | "rpc" | "acp";
  /**
   * Offers a tool to the model. A name that is taken or invalid is reported
   * and that tool skipped; the extension stays loaded.
   */
  registerTool(tool: Tool): void;
  /**
   * Adds the slash command `/name`.
   *
   * @param name `[a-z0-9-]+`, written without the slash. A name taken by a
   * built-in command or another extension is reported and skipped.
   * @param command Its description and what it does.
   * @throws {TypeError} When the name or command is malformed.
   */
  registerCommand(name: string, command: ExtensionCommand): void;
  /**
   * Runs `handler` when one of `keys` is pressed in the editor.
   *
   * @param keys Key specs such as "ctrl+shift+p", "alt+x", "f5".
   * @param handler What to do.
   * @param description Shown by `/help`.
   * @throws {TypeError} When a key spec is malformed.
   */
  registerKeybinding(
    keys: string | readonly string[],
    handler: KeybindingHandler,
    description?: string,
  ): void;
  /**
   * Handles a UI event (built-in: "session_start", "user_message",
   * "thinking", "assistant_text", "tool", "compaction"; or your own). The
   * handler runs synchronously before the component first paints; wrap
   * `event.getComponent()` and pass the result to `event.setComponent()`.
   *
   * @returns A function that removes the handler.
   */
  on<K extends keyof BuiltinUiEvents>(
    event: K,
    handler: UiEventHandler<BuiltinUiEvents[K]>,
  ): () => void;
  /** Handles a custom UI event. */
  on<Data = unknown>(event: string, handler: UiEventHandler<Data>): () => void;
  /**
   * Fires a custom UI event; the component a handler chose for it is
   * appended to the transcript. Built-in event names are fired by panto only.
   *
   * @throws {TypeError} When `event` is empty or a built-in event name.
   */
  emit(event: string, data?: unknown): void;
  /** A deep-frozen snapshot of the conversation, oldest message first. */
  getConversation(): readonly Message[];
  /**
   * Shows a message in the transcript (interactive mode), on stderr (print
   * mode), as a `notice` event (RPC mode) or in the editor's chat (ACP
   * mode).
   */
  notify(text: string, level?: NotifyLevel): void;
}

/**
 * The default export of an extension module.
 *
 * @example
 * ```ts
 * import type { PantoExtension } from "@panto/cli";
 * export default ((panto) => panto.notify(`panto ${panto.version}`)) satisfies PantoExtension;
 * ```
 */
export type PantoExtension = (panto: PantoApi) => void | Promise<void>;
