/**
 * A bordered box around one component (a select list, a form): a title in
 * the top border, key hints in the bottom one. Pickers are drawn in it.
 *
 * @module
 */
import type { Component } from "../component.ts";
import { truncateToWidth, visibleWidth } from "../text_width.ts";
import { defaultTheme, type Theme } from "../theme.ts";

/** Narrower than this, the panel draws its content without a border. */
const MIN_WIDTH = 8;

/** Options for {@linkcode Panel}. */
export interface PanelOptions {
  /** The title, in the top border. */
  title: string;
  /** Key hints, in the bottom border (e.g. `["↑↓ move", "enter select"]`). */
  hints?: readonly string[];
  /** Colours; defaults to {@linkcode defaultTheme}. */
  theme?: Theme;
  /** Sees each key before the content does; returns true when it used it. */
  onKey?: (data: string) => boolean;
}

/**
 * Draws `content` inside a rounded border, one column of padding on each
 * side; keys go to `options.onKey`, then to the content, and so does focus.
 *
 * @example
 * ```ts
 * import { createTheme, Panel, SelectList } from "@panto/tui";
 * const theme = createTheme({ noColor: true });
 * const list = new SelectList([{ value: 1, label: "one" }], { theme });
 * const panel = new Panel(list, { title: "Pick", hints: ["enter select"], theme });
 * const lines = panel.render(30);
 * console.assert(lines[0]!.startsWith("╭─ Pick ") && lines[0]!.endsWith("╮"));
 * console.assert(lines.at(-1)!.startsWith("╰─ enter select "));
 * ```
 */
export class Panel implements Component {
  readonly #content: Component;
  readonly #theme: Theme;
  readonly #onKey: ((data: string) => boolean) | undefined;
  #title: string;
  #hints: readonly string[];
  #focused = false;
  #dirty = true;
  #width = -1;
  #lines: readonly string[] = [];

  /** Wraps `content`. */
  constructor(content: Component, options: PanelOptions) {
    this.#content = content;
    this.#theme = options.theme ?? defaultTheme();
    this.#onKey = options.onKey;
    this.#title = options.title;
    this.#hints = options.hints ?? [];
  }

  /** Set by the engine; passed on to the content (its cursor shows inside). */
  get focused(): boolean {
    return this.#focused;
  }

  set focused(value: boolean) {
    this.#focused = value;
    this.#content.focused = value;
  }

  /** Replaces the title. */
  setTitle(title: string): void {
    if (title !== this.#title) this.#dirty = true;
    this.#title = title;
  }

  /** Replaces the key hints. */
  setHints(hints: readonly string[]): void {
    this.#hints = hints;
    this.#dirty = true;
  }

  /** Offers the key to `onKey`, then to the content. */
  handleInput(data: string): void {
    if (this.#onKey?.(data)) return;
    this.#content.handleInput?.(data);
  }

  /** The border, then the content's lines padded to the inner width. */
  render(width: number): readonly string[] {
    if (!this.#dirty && width === this.#width && this.#content.firstLineChanged() === null) {
      return this.#lines;
    }
    this.#width = width;
    this.#dirty = false;
    // Too narrow for a border: the content alone.
    if (width < MIN_WIDTH) return (this.#lines = this.#content.render(width));
    const inner = width - 4;
    const side = this.#theme.fg("border", "│");
    const body = this.#content.render(inner).map((line) => {
      const cut = truncateToWidth(line, inner, "…");
      return `${side} ${cut}${" ".repeat(Math.max(0, inner - visibleWidth(cut)))} ${side}`;
    });
    this.#lines = [
      this.#edge("╭", this.#theme.bold(this.#title), "╮", width),
      ...body,
      this.#edge("╰", this.#theme.fg("dim", this.#hints.join(" · ")), "╯", width),
    ];
    return this.#lines;
  }

  /** 0 after a title, hint or width change; else the content's first change, one row down. */
  firstLineChanged(): number | null {
    if (this.#dirty || this.#width === -1) return 0;
    const content = this.#content.firstLineChanged();
    return content === null ? null : content + 1;
  }

  /** Drops the cached lines, the content's too. */
  invalidate(): void {
    this.#dirty = true;
    this.#content.invalidate();
  }

  /** `╭─ text ───╮`: the text cut to fit, the rule filling the rest. */
  #edge(left: string, text: string, right: string, width: number): string {
    const border = (s: string) => this.#theme.fg("border", s);
    const label = text === "" ? "" : ` ${truncateToWidth(text, width - 6, "…")} `;
    const fill = Math.max(0, width - 3 - visibleWidth(label));
    return `${border(`${left}─`)}${label}${border(`${"─".repeat(fill)}${right}`)}`;
  }
}
