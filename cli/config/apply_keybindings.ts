import { UsageError } from "../errors.ts";
import type { PantoConfig } from "./panto_config.ts";

/** What {@linkcode applyKeybindings} rebinds: the terminal UI's keybinding table. */
export interface KeybindingTable {
  /** Replaces an action's keys; throws for a malformed key spec. */
  override(action: string, keys: readonly string[]): void;
}

/**
 * Applies the configured key bindings, turning a malformed key spec into a
 * one-line usage error that names the file, the action and the spec.
 *
 * @param table The keybinding table.
 * @param config The loaded configuration.
 * @throws {UsageError} For a key spec the table refuses (exit code 2).
 *
 * @example
 * ```ts
 * import { applyKeybindings } from "./apply_keybindings.ts";
 * const bound = new Map<string, readonly string[]>();
 * const table = { override: (action: string, keys: readonly string[]) => void bound.set(action, keys) };
 * applyKeybindings(table, { keybindings: { "app.exit": ["ctrl+q"] }, keybindingSources: {} });
 * console.assert(bound.get("app.exit")?.[0] === "ctrl+q");
 * ```
 */
export function applyKeybindings(
  table: KeybindingTable,
  config: Pick<PantoConfig, "keybindings" | "keybindingSources">,
): void {
  for (const [action, keys] of Object.entries(config.keybindings)) {
    try {
      table.override(action, keys);
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
