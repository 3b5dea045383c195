/**
 * `@panto/cli`: the `panto` program.
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
