import { UsageError } from "../shared/errors.ts";
import type { PantoConfig } from "./panto_config.ts";

/** What {@linkcode applyKeybindings} rebinds: the terminal UI's keybinding table. */
export interface KeybindingTable {
  /** Replaces an action's keys; throws for a malformed key spec. */
  override(action: string, keys: readonly string[]): void;
  /** The keys an action has now. */
  keys(action: string): readonly string[];
}

/**
 * The actions that interrupt and quit: a config may add keys to them but
 * never take their default keys away (esc, ctrl+c, ctrl+d), so there is
 * always a way to stop a turn and to leave.
 */
export const UNBINDABLE_ACTIONS: readonly string[] = ["app.interrupt", "app.clear", "app.exit"];

/**
 * Applies the configured key bindings, turning a malformed key spec into a
 * one-line usage error that names the file, the action and the spec. The
 * {@linkcode UNBINDABLE_ACTIONS} keep their keys; configured ones are added.
 *
 * @param table The keybinding table.
 * @param config The loaded configuration.
 * @throws {UsageError} For a key spec the table refuses (exit code 2).
 *
 * @example
 * ```ts
 * import { applyKeybindings } from "./apply_keybindings.ts";
 * const bound = new Map<string, readonly string[]>([["app.exit", ["ctrl+d"]]]);
 * const table = {
 *   override: (action: string, keys: readonly string[]) => void bound.set(action, keys),
 *   keys: (action: string) => bound.get(action) ?? [],
 * };
 * applyKeybindings(table, { keybindings: { "app.exit": ["ctrl+q"], "app.expandTools": [] }, keybindingSources: {} });
 * console.assert(bound.get("app.exit")?.join() === "ctrl+d,ctrl+q");
 * console.assert(bound.get("app.expandTools")?.length === 0);
 * ```
 */
export function applyKeybindings(
  table: KeybindingTable,
  config: Pick<PantoConfig, "keybindings" | "keybindingSources">,
): void {
  for (const [action, keys] of Object.entries(config.keybindings)) {
    try {
      const kept = UNBINDABLE_ACTIONS.includes(action) ? table.keys(action) : [];
      table.override(action, [...new Set([...kept, ...keys])]);
    } catch (error) {
      const source = config.keybindingSources[action] ?? "the config";
      throw new UsageError(
        `${source}: keybindings[${JSON.stringify(action)}]: ${
          (error as Error).message
        } (keys look like "ctrl+c", "alt+enter" or "escape")`,
      );
    }
  }
}
