/**
 * `@panto/cli`: the `panto` program, and the API its extensions are written
 * against: {@linkcode PantoApi}, the UI-event vocabulary (`on("tool", …)`)
 * and the event data those events carry. These are its own types only:
 * import messages, tools and other library types from `@panto/lib`, and
 * components from `@panto/tui`.
 *
 * @example An extension that adds a `/hello` command
 * ```ts
 * import type { PantoApi } from "@panto/cli";
 *
 * export default function hello(panto: PantoApi): void {
 *   panto.registerCommand("hello", {
 *     description: "Say hello",
 *     run: (args, ctx) => ctx.notify(`Hello, ${args || "world"}!`),
 *   });
 * }
 * console.assert(typeof hello === "function");
 * ```
 *
 * @module
 */
export type {
  ExtensionCommand,
  ExtensionContext,
  KeybindingHandler,
  NotifyLevel,
  PantoApi,
  PantoExtension,
} from "./extensions/extension_api.ts";
export type { BuiltinUiEvents, UiEvent, UiEventHandler } from "./chat/ui_events.ts";
export type { WelcomeData } from "./chat/components/welcome.ts";
export type { ToolUseData } from "./chat/components/tool_use.ts";
export type { CompactionData } from "./chat/components/compaction_summary.ts";
