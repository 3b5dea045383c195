/**
 * `@panto/cli`: the `panto` program, and the API its extensions are written
 * against: {@linkcode PantoApi}, the UI-event vocabulary (`on("tool", …)`)
 * and the types those refer to. The `@panto/lib` types (messages, tools…)
 * are re-exported as types so an extension can import everything it
 * names from here.
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
export type { BuiltinUiEvents, UiEvent, UiEventHandler } from "./interactive/ui_events.ts";
export type { WelcomeData } from "./interactive/components/welcome.ts";
export type { ToolUseData } from "./interactive/components/tool_use.ts";
export type { CompactionData } from "./interactive/components/compaction_summary.ts";
export type * from "@panto/lib";
export type { Component } from "@panto/tui";
