/**
 * Named actions bound to key specs, with user overrides. The engine and
 * components look keys up by action ("editor.submit") rather than by key,
 * so users can rebind without touching components.
 *
 * @module
 */
import { matchesKey, parseKeySpec } from "./keys.ts";

/** Action name → key specs (see {@linkcode matchesKey} for the spec syntax). */
export type KeybindingMap = Readonly<Record<string, readonly string[]>>;

/**
 * Default bindings for the engine, the input editor and select lists.
 * Apps add their own actions (e.g. "app.exit") through the constructor.
 */
export const DEFAULT_KEYBINDINGS: KeybindingMap = {
  "tui.suspend": ["ctrl+z"],
  "editor.submit": ["enter"],
  "editor.newline": ["shift+enter", "alt+enter"],
  "editor.left": ["left", "ctrl+b"],
  "editor.right": ["right", "ctrl+f"],
  "editor.up": ["up"],
  "editor.down": ["down"],
  "editor.wordLeft": ["alt+left", "ctrl+left", "alt+b"],
  "editor.wordRight": ["alt+right", "ctrl+right", "alt+f"],
  "editor.lineStart": ["home", "ctrl+a"],
  "editor.lineEnd": ["end", "ctrl+e"],
  "editor.deleteBackward": ["backspace", "shift+backspace"],
  "editor.deleteForward": ["delete", "ctrl+d"],
  "editor.deleteWordBackward": ["ctrl+w", "alt+backspace", "ctrl+backspace"],
  "editor.deleteWordForward": ["alt+d", "alt+delete", "ctrl+delete"],
  "editor.killToLineEnd": ["ctrl+k"],
  "editor.killToLineStart": ["ctrl+u"],
  "editor.yank": ["ctrl+y"],
  "editor.yankPop": ["alt+y"],
  "editor.undo": ["ctrl+-", "ctrl+_"],
  "select.up": ["up", "ctrl+p"],
  "select.down": ["down", "ctrl+n"],
  "select.confirm": ["enter"],
  "select.cancel": ["escape", "ctrl+c"],
};

/**
 * A keybinding table: defaults plus per-action overrides.
 *
 * @example
 * ```ts
 * import { Keybindings } from "@panto/tui";
 * const bindings = new Keybindings({ "app.exit": ["ctrl+c"] });
 * console.assert(bindings.matches("\x03", "app.exit"));
 * bindings.override("app.exit", ["ctrl+q"]);
 * console.assert(!bindings.matches("\x03", "app.exit"));
 * console.assert(bindings.matches("\x11", "app.exit"));
 * ```
 */
export class Keybindings {
  readonly #bindings = new Map<string, readonly string[]>();

  /** Starts from {@linkcode DEFAULT_KEYBINDINGS} plus `extra` (which wins on conflicts). */
  constructor(extra: KeybindingMap = {}) {
    for (const [action, keys] of Object.entries({ ...DEFAULT_KEYBINDINGS, ...extra })) {
      this.override(action, keys);
    }
  }

  /**
   * Replaces the keys of `action` (an empty list unbinds it). Throws if a
   * spec has an unknown modifier, so a typo in user config is reported.
   */
  override(action: string, keys: readonly string[]): void {
    for (const spec of keys) parseKeySpec(spec);
    this.#bindings.set(action, [...keys]);
  }

  /** The key specs bound to `action` (empty when unbound). */
  keys(action: string): readonly string[] {
    return this.#bindings.get(action) ?? [];
  }

  /** Whether the input sequence `data` triggers `action`. */
  matches(data: string, action: string): boolean {
    return this.keys(action).some((spec) => matchesKey(data, spec));
  }

  /**
   * The first action (in definition order) among `actions` that `data`
   * triggers, or `undefined`. Scoping by a list keeps "select.up" and
   * "editor.up" from shadowing each other.
   */
  actionFor(data: string, actions: readonly string[]): string | undefined {
    return actions.find((action) => this.matches(data, action));
  }
}
