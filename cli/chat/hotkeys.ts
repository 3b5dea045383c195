/**
 * What `/hotkeys` lists: every key action of the chat with the keys it has
 * now (the defaults, or the user's from the config's `keybindings`, marked
 * with the file that set them), the extensions' keys, and what typed
 * prefixes do.
 *
 * @module
 */

/** The keys of each action, as the keybinding table has them now. */
export interface KeyLookup {
  /** The key specs bound to `action` (empty when unbound). */
  keys(action: string): readonly string[];
}

/** A key an extension registered. */
export interface ExtensionKey {
  /** Its key specs. */
  readonly keys: readonly string[];
  /** What it does, when the extension said. */
  readonly description?: string;
  /** The extension's name. */
  readonly extension: string;
}

/** What {@linkcode hotkeysText} lists besides the built-in actions. */
export interface HotkeysInput {
  /** The keybinding table in use. */
  keys: KeyLookup;
  /** The config file that set each action the user rebound, by action. */
  configured: Readonly<Record<string, string>>;
  /** The enabled extensions' keys. */
  extensionKeys: readonly ExtensionKey[];
}

/** A titled group of actions, each with what it does. */
type Section = readonly [title: string, rows: readonly (readonly [string, string])[]];

/** The actions by group, in the order listed; every bound action of the chat is here. */
export const KEY_ACTIONS: readonly Section[] = [
  ["Chat", [
    ["editor.submit", "send the prompt (steers a running turn)"],
    ["app.followUp", "while a turn runs: queue a follow-up"],
    ["app.dequeue", "take the last queued prompt back into the editor"],
    ["app.interrupt", "interrupt the turn; twice on an empty editor: /tree"],
    ["app.clear", "clear the input; twice quickly: quit"],
    ["app.exit", "quit (on an empty input)"],
    ["app.selectModel", "pick a model (/model)"],
    ["app.nextModel", "next model"],
    ["app.previousModel", "previous model"],
    ["app.cycleThinking", "next reasoning level"],
    ["app.toggleThinking", "show or hide thinking"],
    ["app.expandTools", "expand or collapse tool calls"],
    ["app.transcript", "transcript viewer: the whole session, tool output expanded"],
    ["app.externalEditor", "edit the input in $VISUAL / $EDITOR"],
    ["app.pasteImage", "attach the clipboard's image"],
    ["tui.suspend", "suspend (fg resumes)"],
  ]],
  ["Editing", [
    ["editor.newline", "new line"],
    ["editor.left", "cursor left"],
    ["editor.right", "cursor right"],
    ["editor.up", "cursor up; history on the first line"],
    ["editor.down", "cursor down; history on the last line"],
    ["editor.wordLeft", "word left"],
    ["editor.wordRight", "word right"],
    ["editor.lineStart", "start of line"],
    ["editor.lineEnd", "end of line"],
    ["editor.deleteBackward", "delete the character before the cursor"],
    ["editor.deleteForward", "delete the character under the cursor"],
    ["editor.deleteWordBackward", "delete the word before the cursor"],
    ["editor.deleteWordForward", "delete the word after the cursor"],
    ["editor.killToLineStart", "delete to the start of the line"],
    ["editor.killToLineEnd", "delete to the end of the line"],
    ["editor.yank", "paste the last deleted text"],
    ["editor.yankPop", "after a paste: cycle through deleted text"],
    ["editor.undo", "undo"],
  ]],
  ["Pickers", [
    ["select.up", "previous item"],
    ["select.down", "next item"],
    ["select.confirm", "choose"],
    ["select.cancel", "close"],
  ]],
];

/** What typed prefixes do (not keys, but what users look for beside them). */
const TYPED: readonly (readonly [string, string])[] = [
  ["/", "slash commands (/help lists them)"],
  ["!command", "run a shell command; its output goes with the next prompt"],
  ["!!command", "run a shell command; its output is only shown, not sent to the model"],
  ["@path", "attach a file"],
];

/** Width of the key column. */
const KEY_COLUMN = 24;

/**
 * The `/hotkeys` listing: each action's current keys and what it does, a
 * rebound action followed by the config file that set it, an unbound one
 * as `(unbound)`; then the extensions' keys and the typed prefixes.
 *
 * @example
 * ```ts
 * import { hotkeysText } from "./hotkeys.ts";
 * const keys = { keys: (action: string) => action === "app.selectModel" ? ["ctrl+k"] : [] };
 * const text = hotkeysText({
 *   keys,
 *   configured: { "app.selectModel": "~/.panto/config.json" },
 *   extensionKeys: [{ keys: ["f5"], description: "say hi", extension: "hello" }],
 * });
 * console.assert(/ctrl\+k +pick a model \(\/model\) \(set in ~\/\.panto\/config\.json\)/.test(text));
 * console.assert(/f5 +say hi \(hello\)/.test(text));
 * ```
 *
 * @param input The keybinding table, who set what, and the extensions' keys.
 * @returns The listing, one binding a line.
 */
export function hotkeysText(input: HotkeysInput): string {
  const listed = new Set(KEY_ACTIONS.flatMap(([, rows]) => rows.map(([action]) => action)));
  const sections: Section[] = [...KEY_ACTIONS];
  // Actions the config set that no group lists (the table takes any name an app defines).
  const others = Object.keys(input.configured).filter((action) => !listed.has(action));
  if (others.length) sections.push(["Other", others.map((action) => [action, action])]);
  const lines = sections.flatMap(([title, rows]) => [
    title,
    ...rows.map(([action, what]) => actionLine(input, action, what)),
    "",
  ]);
  if (input.extensionKeys.length) {
    lines.push("Extensions");
    for (const { keys, description, extension } of input.extensionKeys) {
      lines.push(row(keys.join(" / "), `${description ?? "(no description)"} (${extension})`));
    }
    lines.push("");
  }
  lines.push("Typed", ...TYPED.map(([prefix, what]) => row(prefix, what)));
  return lines.join("\n");
}

function actionLine(input: HotkeysInput, action: string, what: string): string {
  const keys = input.keys.keys(action);
  const source = input.configured[action];
  const set = source === undefined ? "" : ` (set in ${source})`;
  return row(keys.length ? keys.join(" / ") : "(unbound)", what + set);
}

function row(keys: string, what: string): string {
  return `  ${keys.padEnd(KEY_COLUMN - 2)} ${what}`;
}
