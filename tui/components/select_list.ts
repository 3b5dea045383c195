/**
 * A filterable list to pick from (model and session pickers), usable inline
 * or as an overlay.
 *
 * @module
 */
import { CURSOR_MARKER } from "../component.ts";
import { Keybindings } from "../keybindings.ts";
import { matchesKey, parseKey } from "../keys.ts";
import { truncateToWidth } from "../text_width.ts";
import { defaultTheme } from "../theme.ts";
import type { Theme } from "../theme.ts";
import { CachedComponent } from "./cached_component.ts";
import { sanitizeTerminalText } from "../sanitize.ts";

/** One choice. */
export interface SelectItem<T> {
  /** What selecting it yields. */
  value: T;
  /** What the list shows (and what typing filters on). */
  label: string;
  /** Dimmed text after the label (also matched by the filter); line breaks show as spaces. */
  description?: string;
}

/** Options for {@linkcode SelectList}. */
export interface SelectListOptions<T> {
  /** Colours; defaults to {@linkcode defaultTheme}. */
  theme?: Theme;
  /** A title line above the filter. */
  title?: string;
  /** Item rows shown at once (default 10). */
  maxVisible?: number;
  /** Called with the chosen item on enter. */
  onSelect?: (item: SelectItem<T>) => void;
  /** Called on escape. */
  onCancel?: () => void;
  /**
   * Called when another item becomes the highlighted one (moving, filtering),
   * e.g. to preview it.
   */
  onHighlight?: (item: SelectItem<T>) => void;
  /** Key bindings (`select.up`, `select.down`, `select.confirm`, `select.cancel`). */
  keybindings?: Keybindings;
  /** Index of the item selected at first (default 0). */
  initialIndex?: number;
}

/**
 * Rank of `item` for `query`: 0 label prefix, 1 substring, 2 subsequence,
 * -1 no match. Case-insensitive.
 */
export function matchRank(query: string, item: { label: string; description?: string }): number {
  if (query === "") return 0;
  const needle = query.toLowerCase();
  const label = item.label.toLowerCase();
  if (label.startsWith(needle)) return 0;
  const haystack = `${label} ${item.description?.toLowerCase() ?? ""}`;
  if (haystack.includes(needle)) return 1;
  let at = 0;
  for (const char of haystack) {
    if (char === needle[at]) at++;
    if (at === needle.length) return 2;
  }
  return -1;
}

/**
 * Up/down move, enter selects, escape cancels, typing filters (backspace
 * edits the filter). The view scrolls to keep the selection visible.
 *
 * @example
 * ```ts
 * import { createTheme, SelectList } from "@panto/tui";
 * let chosen = "";
 * const list = new SelectList(
 *   [{ value: "a", label: "alpha" }, { value: "b", label: "beta" }],
 *   { theme: createTheme({ noColor: true }), onSelect: (item) => (chosen = item.value) },
 * );
 * for (const key of ["b", "\r"]) list.handleInput(key);
 * console.assert(chosen === "b");
 * ```
 */
export class SelectList<T> extends CachedComponent {
  #items: readonly SelectItem<T>[];
  #visible: SelectItem<T>[];
  #filter = "";
  #selected: number;
  #scrollTop = 0;
  #focused = false;
  readonly #theme: Theme;
  readonly #options: SelectListOptions<T>;
  readonly #keys: Keybindings;
  readonly #maxVisible: number;
  /** The item `onHighlight` was last told about (at first, the one selected). */
  #highlighted: SelectItem<T> | undefined;

  /** Creates a list over `items`. */
  constructor(items: readonly SelectItem<T>[], options: SelectListOptions<T> = {}) {
    super();
    this.#items = items;
    this.#visible = [...items];
    this.#options = options;
    this.#theme = options.theme ?? defaultTheme();
    this.#keys = options.keybindings ?? new Keybindings();
    this.#maxVisible = Math.max(1, options.maxVisible ?? 10);
    this.#selected = Math.min(
      Math.max(0, options.initialIndex ?? 0),
      Math.max(0, items.length - 1),
    );
    this.#reveal();
    this.#highlighted = this.selectedItem;
  }

  /** Set by the engine; a focused list puts the cursor marker in the filter line. */
  get focused(): boolean {
    return this.#focused;
  }

  set focused(value: boolean) {
    if (value !== this.#focused) this.changed();
    this.#focused = value;
  }

  /** The filter typed so far. */
  get filter(): string {
    return this.#filter;
  }

  /** Items matching the filter, best first. */
  get visibleItems(): readonly SelectItem<T>[] {
    return this.#visible;
  }

  /** The highlighted item, if any. */
  get selectedItem(): SelectItem<T> | undefined {
    return this.#visible[this.#selected];
  }

  /** Replaces the items (keeps the filter). */
  setItems(items: readonly SelectItem<T>[]): void {
    this.#items = items;
    this.#applyFilter();
  }

  /** Replaces the filter text. */
  setFilter(filter: string): void {
    this.#filter = filter;
    this.#applyFilter();
  }

  /** Selects the first visible item with `value` (nothing changes when none has it). */
  selectValue(value: T): void {
    const index = this.#visible.findIndex((item) => item.value === value);
    if (index < 0) return;
    this.#selected = index;
    this.#reveal();
    this.#selectionChanged();
  }

  /** Handles one key. */
  handleInput(data: string): void {
    const action = this.#keys.actionFor(data, [
      "select.up",
      "select.down",
      "select.confirm",
      "select.cancel",
    ]);
    if (action === "select.up") this.#move(-1);
    else if (action === "select.down") this.#move(1);
    else if (action === "select.confirm") this.#confirm();
    else if (action === "select.cancel") this.#options.onCancel?.();
    else if (matchesKey(data, "pageup")) this.#move(-this.#maxVisible);
    else if (matchesKey(data, "pagedown")) this.#move(this.#maxVisible);
    else if (matchesKey(data, "backspace")) this.setFilter([...this.#filter].slice(0, -1).join(""));
    else this.#typeFilter(data);
  }

  /** Builds the lines for `width` (see {@linkcode CachedComponent}). */
  protected build(width: number): string[] {
    const theme = this.#theme;
    const lines: string[] = [];
    if (this.#options.title !== undefined) {
      lines.push(truncateToWidth(theme.bold(this.#options.title), width, "…"));
    }
    const cursor = this.#focused ? CURSOR_MARKER + theme.inverse(" ") : "";
    const filter = this.#filter === "" && !this.#focused
      ? theme.fg("dim", "type to filter")
      : this.#filter + cursor;
    lines.push(truncateToWidth(theme.fg("accent", "› ") + filter, width, "…"));
    if (this.#visible.length === 0) {
      lines.push(truncateToWidth(theme.fg("dim", "  no matches"), width, "…"));
      return lines;
    }
    const shown = this.#visible.slice(this.#scrollTop, this.#scrollTop + this.#maxVisible);
    shown.forEach((item, i) => lines.push(this.#itemLine(item, this.#scrollTop + i, width)));
    if (this.#visible.length > this.#maxVisible) {
      const position = `  (${this.#selected + 1}/${this.#visible.length})`;
      lines.push(truncateToWidth(theme.fg("dim", position), width, "…"));
    }
    return lines;
  }

  #itemLine(item: SelectItem<T>, index: number, width: number): string {
    const theme = this.#theme;
    const selected = index === this.#selected;
    const marker = selected ? theme.fg("selected", "› ") : "  ";
    const text = singleLine(item.label);
    const label = selected ? theme.bold(theme.fg("selected", text)) : text;
    const description = item.description === undefined
      ? ""
      : "  " + theme.fg("muted", singleLine(item.description));
    const line = marker + label + description;
    return truncateToWidth(selected ? theme.bg("selected", line) : line, width, "…");
  }

  #typeFilter(data: string): void {
    const key = parseKey(data);
    const text = key?.text ?? (data.startsWith("\x1b") || data < " " ? undefined : data);
    if (text === undefined || key?.ctrl || key?.alt || key?.event === "release") return;
    this.setFilter(this.#filter + text);
  }

  #applyFilter(): void {
    const ranked = this.#items
      .map((item, index) => ({ item, index, rank: matchRank(this.#filter, item) }))
      .filter((entry) => entry.rank >= 0)
      .sort((a, b) => a.rank - b.rank || a.index - b.index);
    this.#visible = ranked.map((entry) => entry.item);
    this.#selected = 0;
    this.#scrollTop = 0;
    this.#selectionChanged();
  }

  #move(step: number): void {
    const count = this.#visible.length;
    if (count === 0) return;
    const single = Math.abs(step) === 1;
    this.#selected = single
      ? (this.#selected + step + count) % count
      : Math.min(count - 1, Math.max(0, this.#selected + step));
    this.#reveal();
    this.#selectionChanged();
  }

  /** Redraws, and tells `onHighlight` when the highlighted item is another one. */
  #selectionChanged(): void {
    this.changed();
    const item = this.selectedItem;
    if (item === undefined || item === this.#highlighted) return;
    this.#highlighted = item;
    this.#options.onHighlight?.(item);
  }

  /** Scrolls so the selection is visible. */
  #reveal(): void {
    if (this.#selected < this.#scrollTop) this.#scrollTop = this.#selected;
    if (this.#selected >= this.#scrollTop + this.#maxVisible) {
      this.#scrollTop = this.#selected - this.#maxVisible + 1;
    }
  }

  #confirm(): void {
    const item = this.selectedItem;
    if (item !== undefined) this.#options.onSelect?.(item);
  }
}

/**
 * A list item's text on its one row: line breaks become spaces (the
 * renderer would drop them and glue the lines together); terminal controls
 * go (items show file names and stored prompts).
 *
 * @example
 * ```ts
 * import { singleLine } from "./select_list.ts";
 * console.assert(singleLine("one\ntwo") === "one two");
 * ```
 */
export function singleLine(text: string): string {
  return sanitizeTerminalText(text).replace(/\n+/g, " ");
}
