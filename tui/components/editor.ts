/**
 * The prompt editor: multi-line input with Emacs-style motion, a kill ring,
 * word-grouped undo, prompt history, collapsed large pastes and an
 * autocomplete hook.
 *
 * @module
 */
import type { Component } from "../component.ts";
import { CURSOR_MARKER } from "../component.ts";
import { pastedText } from "../input_splitter.ts";
import { Keybindings } from "../keybindings.ts";
import { matchesKey, parseKey } from "../keys.ts";
import { truncateToWidth, visibleWidth } from "../text_width.ts";
import { defaultTheme } from "../theme.ts";
import type { Theme } from "../theme.ts";
import type {
  AutocompleteItem,
  AutocompleteProvider,
  AutocompleteSuggestions,
} from "./autocomplete.ts";
import { EditorBuffer, PASTE_MARKER_PATTERN, pasteMarker } from "./editor_buffer.ts";
import type { CursorPosition } from "./editor_buffer.ts";
import { PromptHistory } from "./editor_history.ts";
import { layout, positionAtColumn } from "./editor_layout.ts";
import type { Row } from "./editor_layout.ts";
import { KillRing } from "./kill_ring.ts";
import { singleLine } from "./select_list.ts";
import { UndoStack } from "./undo_stack.ts";

// C1 too: a terminal acts on U+009B (CSI) and U+009D (OSC) as on their ESC forms.
// deno-lint-ignore no-control-regex
const CONTROL_CHARS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const TAB_SPACES = "    ";

/** Options for {@linkcode Editor}. */
export interface EditorOptions {
  /** Colours; defaults to {@linkcode defaultTheme}. */
  theme?: Theme;
  /** Text rows shown before the editor scrolls (default 8). */
  maxRows?: number;
  /** Called with the submitted text (paste markers expanded). */
  onSubmit?: (text: string) => void;
  /** Called after every edit with the raw text (markers not expanded). */
  onChange?: (text: string) => void;
  /** Asks the host for a frame (async autocomplete answers arrive late). */
  requestRender?: () => void;
  /** Suggestion source (slash commands, `@file` paths…). */
  autocomplete?: AutocompleteProvider;
  /** Reports a failing autocomplete provider. */
  onError?: (error: unknown) => void;
  /** Earlier prompts, oldest first. */
  history?: readonly string[];
  /** Key bindings (the `editor.*` and `select.up`/`select.down` actions). */
  keybindings?: Keybindings;
  /** Suggestion rows shown at once (default 5). */
  maxSuggestions?: number;
  /** A paste with more lines than this becomes a marker (default 10). */
  pasteMaxLines?: number;
  /** A paste with more characters than this becomes a marker (default 1000). */
  pasteMaxChars?: number;
}

/** What an undo step restores. */
interface Snapshot {
  text: string;
  cursor: CursorPosition;
}

/** The previous command, for undo grouping, kill merging and yank-pop. */
type LastAction = "type-word" | "type-space" | "delete" | "kill" | "yank" | "other";

interface OpenSuggestions extends AutocompleteSuggestions {
  selected: number;
}

/** Keybinding action → editor command, in priority order ("deleteBackward" before
 * "deleteWordBackward": tmux sends ctrl+h for backspace, which also spells ctrl+backspace). */
const ACTIONS = [
  "editor.newline",
  "editor.submit",
  "editor.deleteBackward",
  "editor.deleteWordBackward",
  "editor.deleteForward",
  "editor.deleteWordForward",
  "editor.wordLeft",
  "editor.wordRight",
  "editor.left",
  "editor.right",
  "editor.lineStart",
  "editor.lineEnd",
  "editor.up",
  "editor.down",
  "editor.killToLineStart",
  "editor.killToLineEnd",
  "editor.yank",
  "editor.yankPop",
  "editor.undo",
] as const;

type Action = (typeof ACTIONS)[number];

/**
 * The input box. Enter submits, shift+enter (or `\` then enter, for
 * terminals that cannot report shift) inserts a newline; the box grows to
 * `maxRows` rows and then scrolls with the cursor.
 *
 * @example
 * ```ts
 * import { createTheme, Editor } from "@panto/tui";
 * const sent: string[] = [];
 * const editor = new Editor({ theme: createTheme({ noColor: true }), onSubmit: (t) => sent.push(t) });
 * for (const key of ["h", "i", "\x1b[13;2u", "!", "\r"]) editor.handleInput(key);
 * console.assert(sent[0] === "hi\n!");
 * ```
 */
export class Editor implements Component {
  readonly #theme: Theme;
  readonly #options: EditorOptions;
  readonly #maxRows: number;
  readonly #keys: Keybindings;
  readonly #pastes = new Map<number, string>();
  readonly #buffer = new EditorBuffer((id) => this.#pastes.has(id));
  readonly #killRing = new KillRing();
  readonly #undo = new UndoStack<Snapshot>();
  readonly #history: PromptHistory;
  #provider: AutocompleteProvider | undefined;
  #pasteCount = 0;
  #last: LastAction = "other";
  #preferredX: number | null = null;
  #yankRange: { from: CursorPosition; to: CursorPosition } | undefined;
  #suggestions: OpenSuggestions | undefined;
  #suggestGeneration = 0;
  #scrollTop = 0;
  #width = 80;
  #focused = false;
  #version = 0;
  #renderedVersion = -1;

  /** Creates an empty editor. */
  constructor(options: EditorOptions = {}) {
    this.#options = options;
    this.#theme = options.theme ?? defaultTheme();
    this.#maxRows = Math.max(1, options.maxRows ?? 8);
    this.#history = new PromptHistory(options.history ?? []);
    this.#provider = options.autocomplete;
    this.#keys = options.keybindings ?? new Keybindings();
  }

  /** Set by the engine; a focused editor draws its cursor and the cursor marker. */
  get focused(): boolean {
    return this.#focused;
  }

  set focused(value: boolean) {
    if (value !== this.#focused) this.#version++;
    this.#focused = value;
  }

  /** The raw text (paste markers not expanded). */
  getText(): string {
    return this.#buffer.text;
  }

  /** The text with every paste marker replaced by what was pasted. */
  getExpandedText(): string {
    return this.#buffer.text.replace(
      PASTE_MARKER_PATTERN,
      (marker, id: string) => this.#pastes.get(Number(id)) ?? marker,
    );
  }

  /**
   * Replaces the text (undoable) and puts the cursor at the end; CR and CRLF
   * become newlines, tabs spaces. Ends history browsing.
   */
  setText(text: string): void {
    this.#saveUndo();
    this.#buffer.setText(sanitize(text));
    this.#afterEdit("other");
  }

  /** The cursor position (line index, UTF-16 offset in the line). */
  get cursor(): Readonly<CursorPosition> {
    return this.#buffer.cursor;
  }

  /** Submitted prompts, oldest first (for persisting). */
  get history(): readonly string[] {
    return this.#history.entries;
  }

  /** Whether the suggestion list is open. */
  get showingSuggestions(): boolean {
    return this.#suggestions !== undefined;
  }

  /** Sets or removes the autocomplete provider. */
  setAutocompleteProvider(provider: AutocompleteProvider | undefined): void {
    this.#provider = provider;
    this.#closeSuggestions();
  }

  /** Inserts text at the cursor as if typed (one undo step); CR and CRLF become newlines. */
  insertText(text: string): void {
    this.#saveUndo();
    this.#buffer.insert(sanitize(text));
    this.#afterEdit("other");
  }

  /**
   * Inserts pasted text. Pastes over the line or character limit become an
   * atomic marker such as `[paste #1 +42 lines]`, expanded on submit.
   */
  paste(text: string): void {
    const normalized = text.replace(/\r\n?/g, "\n");
    const lines = normalized.split("\n").length;
    const tooBig = lines > (this.#options.pasteMaxLines ?? 10) ||
      normalized.length > (this.#options.pasteMaxChars ?? 1000);
    this.#saveUndo();
    if (tooBig) {
      const id = ++this.#pasteCount;
      this.#pastes.set(id, normalized);
      this.#buffer.insert(pasteMarker(id, normalized));
    } else {
      this.#buffer.insert(sanitize(normalized));
    }
    this.#afterEdit("other");
  }

  /** Handles one key sequence or a bracketed paste. */
  handleInput(data: string): void {
    const pasted = pastedText(data);
    if (pasted !== null) {
      this.paste(pasted);
      return;
    }
    const key = parseKey(data);
    if (key?.event === "release") return;
    if (this.#suggestions !== undefined && this.#handleSuggestionKey(data)) return;
    const action = this.#keys.actionFor(data, ACTIONS) as Action | undefined;
    if (action !== undefined) {
      this.#run(action);
      return;
    }
    if (matchesKey(data, "tab")) {
      this.#requestSuggestions(true);
      return;
    }
    const text = key?.text ?? (data.startsWith("\x1b") ? undefined : data);
    if (text !== undefined && !key?.ctrl && !key?.alt && sanitize(text) !== "") {
      this.#type(sanitize(text));
    }
  }

  /** Lines: a border, the visible rows, a border, then any suggestions. */
  render(width: number): readonly string[] {
    this.#width = Math.max(1, width);
    const { rows, cursorRow, cursorX } = layout(this.#buffer, this.#width);
    this.#scrollTo(cursorRow, rows.length);
    const visible = rows.slice(this.#scrollTop, this.#scrollTop + this.#maxRows);
    const above = this.#scrollTop;
    const below = rows.length - this.#scrollTop - visible.length;
    const lines = [this.#border(above > 0 ? `↑ ${above} more` : "")];
    visible.forEach((row, i) => {
      const hasCursor = this.#focused && this.#scrollTop + i === cursorRow;
      lines.push(this.#renderRow(row, hasCursor ? cursorX : -1));
    });
    lines.push(this.#border(below > 0 ? `↓ ${below} more` : ""));
    lines.push(...this.#renderSuggestions());
    this.#renderedVersion = this.#version;
    return lines.map((
      line,
    ) => (visibleWidth(line) > this.#width ? truncateToWidth(line, this.#width) : line));
  }

  /** 0 after any change since the last render (the editor is small), else null. */
  firstLineChanged(): number | null {
    return this.#renderedVersion === this.#version ? null : 0;
  }

  /** Forces the next render. */
  invalidate(): void {
    this.#version++;
  }

  // --- editing -----------------------------------------------------------

  #run(action: Action): void {
    switch (action) {
      case "editor.submit":
        return this.#submit();
      case "editor.newline":
        return this.#edit(() => this.#buffer.insert("\n"));
      case "editor.deleteBackward":
        return this.#deleteTo(this.#buffer.left(this.#buffer.cursor));
      case "editor.deleteForward":
        if (this.#buffer.text === "") return; // leave ctrl+d on an empty box to the app
        return this.#deleteTo(this.#buffer.right(this.#buffer.cursor));
      case "editor.left":
        return this.#move(this.#buffer.left(this.#buffer.cursor));
      case "editor.right":
        return this.#move(this.#buffer.right(this.#buffer.cursor));
      case "editor.wordLeft":
        return this.#move(this.#buffer.wordLeft(this.#buffer.cursor));
      case "editor.wordRight":
        return this.#move(this.#buffer.wordRight(this.#buffer.cursor));
      case "editor.lineStart":
        return this.#move({ line: this.#buffer.cursor.line, col: 0 });
      case "editor.lineEnd":
        return this.#move({ line: this.#buffer.cursor.line, col: this.#currentLine().length });
      case "editor.up":
        return this.#vertical(-1);
      case "editor.down":
        return this.#vertical(1);
      case "editor.deleteWordBackward":
        return this.#kill(this.#buffer.wordLeft(this.#buffer.cursor), true);
      case "editor.deleteWordForward":
        return this.#kill(this.#buffer.wordRight(this.#buffer.cursor), false);
      case "editor.killToLineStart":
        return this.#kill(this.#lineBackTarget(), true);
      case "editor.killToLineEnd":
        return this.#kill(this.#lineForwardTarget(), false);
      case "editor.yank":
        return this.#yank(this.#killRing.yank());
      case "editor.yankPop":
        return this.#yankPop();
      case "editor.undo":
        return this.#restoreUndo();
    }
  }

  #currentLine(): string {
    return this.#buffer.lineText(this.#buffer.cursor.line);
  }

  #lineBackTarget(): CursorPosition {
    const { cursor } = this.#buffer;
    return cursor.col > 0 ? { line: cursor.line, col: 0 } : this.#buffer.left(cursor);
  }

  #lineForwardTarget(): CursorPosition {
    const { cursor } = this.#buffer;
    const length = this.#currentLine().length;
    return cursor.col < length ? { line: cursor.line, col: length } : this.#buffer.right(cursor);
  }

  /** Typing: a run of word characters (or of spaces) is one undo step. */
  #type(text: string): void {
    const group: LastAction = /^\s+$/u.test(text) ? "type-space" : "type-word";
    if (this.#last !== group) this.#saveUndo();
    this.#buffer.insert(text);
    this.#afterEdit(group);
  }

  #edit(change: () => void): void {
    this.#saveUndo();
    change();
    this.#afterEdit("other");
  }

  /** Single-unit deletions in a row are one undo step. */
  #deleteTo(target: CursorPosition): void {
    const { cursor } = this.#buffer;
    if (target.line === cursor.line && target.col === cursor.col) return;
    if (this.#last !== "delete") this.#saveUndo();
    this.#buffer.delete(target, cursor);
    this.#afterEdit("delete");
  }

  #kill(target: CursorPosition, before: boolean): void {
    const { cursor } = this.#buffer;
    if (target.line === cursor.line && target.col === cursor.col) return;
    const merge = this.#last === "kill";
    this.#saveUndo();
    const killed = this.#buffer.delete(target, cursor);
    this.#killRing.kill(killed, { merge, before });
    this.#afterEdit("kill");
  }

  #yank(text: string | undefined): void {
    if (text === undefined) return;
    this.#saveUndo();
    const from = { ...this.#buffer.cursor };
    this.#buffer.insert(text);
    this.#yankRange = { from, to: { ...this.#buffer.cursor } };
    this.#afterEdit("yank");
  }

  /** Replaces the text just yanked with the next older kill. */
  #yankPop(): void {
    if (this.#last !== "yank" || this.#yankRange === undefined) return;
    const text = this.#killRing.pop();
    if (text === undefined) return;
    this.#buffer.delete(this.#yankRange.from, this.#yankRange.to);
    const from = { ...this.#buffer.cursor };
    this.#buffer.insert(text);
    this.#yankRange = { from, to: { ...this.#buffer.cursor } };
    this.#afterEdit("yank");
  }

  #saveUndo(): void {
    this.#undo.push({ text: this.#buffer.text, cursor: { ...this.#buffer.cursor } });
  }

  #restoreUndo(): void {
    const snapshot = this.#undo.pop();
    if (snapshot === undefined) return;
    this.#buffer.setText(snapshot.text);
    this.#buffer.cursor = { ...snapshot.cursor };
    this.#afterEdit("other");
  }

  #afterEdit(action: LastAction): void {
    // An edited (or replaced) text is a new draft: up starts again from the newest prompt.
    this.#history.reset();
    this.#last = action;
    this.#preferredX = null;
    this.#version++;
    this.#options.onChange?.(this.#buffer.text);
    if (this.#provider !== undefined) this.#requestSuggestions(false);
  }

  #move(target: CursorPosition): void {
    this.#buffer.cursor = target;
    this.#last = "other";
    this.#preferredX = null;
    this.#closeSuggestions();
    this.#version++;
  }

  /** Up/down by screen row, keeping the column; history past the first/last row. */
  #vertical(direction: -1 | 1): void {
    const { rows, cursorRow, cursorX } = layout(this.#buffer, this.#width);
    const target = rows[cursorRow + direction];
    if (target === undefined) {
      this.#browseHistory(direction);
      return;
    }
    const x = this.#preferredX ?? cursorX;
    this.#buffer.cursor = positionAtColumn(this.#buffer, target, x);
    this.#last = "other";
    this.#preferredX = x;
    this.#version++;
  }

  #browseHistory(direction: -1 | 1): void {
    const entry = direction < 0 ? this.#history.older(this.#buffer.text) : this.#history.newer();
    if (entry === undefined) return;
    // An entry holds expanded pastes, which may have tabs and control bytes.
    this.#buffer.setText(sanitize(entry));
    this.#last = "other";
    this.#preferredX = null;
    this.#closeSuggestions();
    this.#version++;
  }

  #submit(): void {
    const { cursor } = this.#buffer;
    if (cursor.col > 0 && this.#currentLine()[cursor.col - 1] === "\\") {
      // "\" + enter: a newline for terminals that cannot tell shift+enter apart
      this.#edit(() => {
        this.#buffer.delete({ line: cursor.line, col: cursor.col - 1 }, cursor);
        this.#buffer.insert("\n");
      });
      return;
    }
    const text = this.getExpandedText();
    if (text.trim() === "") return;
    this.#history.add(text);
    this.#buffer.setText("");
    this.#pastes.clear();
    this.#undo.clear();
    this.#closeSuggestions();
    this.#last = "other";
    this.#version++;
    this.#options.onSubmit?.(text);
  }

  // --- autocomplete ------------------------------------------------------

  #handleSuggestionKey(data: string): boolean {
    const open = this.#suggestions;
    if (open === undefined) return false;
    const count = open.items.length;
    const move = this.#keys.actionFor(data, ["select.up", "select.down"]);
    if (move !== undefined) {
      const step = move === "select.up" ? -1 : 1;
      open.selected = (open.selected + step + count) % count;
      this.#version++;
      return true;
    }
    if (matchesKey(data, "tab") || matchesKey(data, "enter")) {
      const item = open.items[open.selected];
      if (item !== undefined) this.#accept(item, open.from);
      return true;
    }
    if (matchesKey(data, "escape")) {
      this.#closeSuggestions();
      return true;
    }
    return false;
  }

  #accept(item: AutocompleteItem, from: number): void {
    this.#closeSuggestions();
    this.#saveUndo();
    this.#buffer.delete(this.#buffer.positionOf(from), this.#buffer.cursor);
    // Values can be file names, which may hold control characters.
    this.#buffer.insert(sanitize(item.value));
    this.#afterEdit("other");
  }

  #closeSuggestions(): void {
    if (this.#suggestions !== undefined) this.#version++;
    this.#suggestions = undefined;
    this.#suggestGeneration++;
  }

  #requestSuggestions(force: boolean): void {
    const provider = this.#provider;
    if (provider === undefined) return;
    const generation = ++this.#suggestGeneration;
    const request = {
      text: this.#buffer.text,
      cursor: this.#buffer.offsetOf(this.#buffer.cursor),
      force,
    };
    let answer: ReturnType<AutocompleteProvider["suggest"]>;
    try {
      answer = provider.suggest(request);
    } catch (error) {
      this.#options.onError?.(error);
      return;
    }
    if (!(answer instanceof Promise)) {
      this.#showSuggestions(answer, force);
      return;
    }
    answer.then(
      (result) => {
        if (generation !== this.#suggestGeneration) return;
        this.#showSuggestions(result, force);
        this.#options.requestRender?.();
      },
      (error) => this.#options.onError?.(error),
    );
  }

  #showSuggestions(result: AutocompleteSuggestions | null, force: boolean): void {
    const had = this.#suggestions !== undefined;
    this.#suggestions = undefined;
    if (result === null || result.items.length === 0) {
      if (had) this.#version++;
      return;
    }
    const only = result.items[0];
    if (force && result.items.length === 1 && only !== undefined) {
      this.#accept(only, result.from);
      return;
    }
    this.#suggestions = { ...result, selected: 0 };
    this.#version++;
  }

  // --- rendering ---------------------------------------------------------

  #scrollTo(cursorRow: number, rowCount: number): void {
    const maxTop = Math.max(0, rowCount - this.#maxRows);
    if (cursorRow < this.#scrollTop) this.#scrollTop = cursorRow;
    if (cursorRow >= this.#scrollTop + this.#maxRows) {
      this.#scrollTop = cursorRow - this.#maxRows + 1;
    }
    this.#scrollTop = Math.min(Math.max(0, this.#scrollTop), maxTop);
  }

  #border(label: string): string {
    const theme = this.#theme;
    if (label === "" || this.#width < label.length + 6) {
      return theme.fg("border", "─".repeat(this.#width));
    }
    const rest = this.#width - label.length - 5;
    return theme.fg("border", "─── ") + theme.fg("muted", label) +
      theme.fg("border", " " + "─".repeat(rest));
  }

  /** A row's text, markers coloured, with the cursor block at `cursorX` (-1: none). */
  #renderRow(row: Row, cursorX: number): string {
    const theme = this.#theme;
    const text = this.#buffer.lineText(row.line);
    const cursorCol = cursorX >= 0 ? this.#buffer.cursor.col : -1;
    let out = "";
    for (const unit of this.#buffer.units(text)) {
      if (unit.start < row.start) continue;
      if (unit.start >= row.end) break;
      const shown = unit.marker ? theme.fg("pasteMarker", unit.text) : unit.text;
      out += unit.start === cursorCol ? CURSOR_MARKER + theme.inverse(unit.text) : shown;
    }
    if (cursorCol === row.end && row.last) out += CURSOR_MARKER + theme.inverse(" ");
    return out;
  }

  #renderSuggestions(): string[] {
    const open = this.#suggestions;
    if (open === undefined) return [];
    const theme = this.#theme;
    const size = Math.max(1, this.#options.maxSuggestions ?? 5);
    const first = Math.min(
      Math.max(0, open.selected - size + 1),
      Math.max(0, open.items.length - size),
    );
    return open.items.slice(first, first + size).map((item, i) => {
      const selected = first + i === open.selected;
      const label = singleLine(item.label ?? item.value);
      const marker = selected ? theme.fg("selected", "› ") : "  ";
      const name = selected ? theme.bold(theme.fg("selected", label)) : label;
      const description = item.description === undefined
        ? ""
        : "  " + theme.fg("muted", singleLine(item.description));
      return truncateToWidth(marker + name + description, this.#width, "…");
    });
  }
}

/**
 * Drops control characters (typed or pasted) other than newline; CR and CRLF
 * become newlines, tabs become spaces.
 */
function sanitize(text: string): string {
  return text.replace(/\r\n?/g, "\n").replaceAll("\t", TAB_SPACES).replace(CONTROL_CHARS, "");
}
