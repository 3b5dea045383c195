/**
 * Pickers drawn as a bordered panel in place of the editor (or, on an empty
 * screen, at the top): never over the transcript.
 *
 * @module
 */
import {
  type Component,
  matchesKey,
  Panel,
  type SelectItem,
  SelectList,
  type Theme,
  type TUI,
} from "@panto/tui";

/** A key that changes what an open picker lists (e.g. "tab: show all sessions"). */
export interface PickerToggle<T> {
  /** The key, as {@linkcode matchesKey} names it (e.g. `tab`). */
  key: string;
  /** What the picker shows after the key has been pressed `times` times: title, items, the key's hint. */
  view(times: number): PickerView<T>;
}

/** What a picker shows. */
export interface PickerView<T> {
  /** The panel's title. */
  title: string;
  /** The choices. */
  items: readonly SelectItem<T>[];
  /** The toggle key's hint (e.g. `tab all sessions`). */
  hint?: string;
}

/** Options for {@linkcode showPicker}. */
export interface PickerOptions<T> extends PickerView<T> {
  /** Index of the item selected at first. */
  initialIndex?: number;
  /** A key that switches to another view. */
  toggle?: PickerToggle<T>;
  /** The component the panel stands in for while open (the editor); without it, the panel goes last. */
  replace?: Component;
}

/** Rows the chat keeps outside the list (border, filter, footer, a line of transcript). */
const RESERVED_ROWS = 8;

/**
 * Shows a filterable list in a bordered panel with a title and key hints,
 * in the place of `options.replace`, focused until a choice or escape.
 *
 * @param tui The engine.
 * @param theme Colours.
 * @param options Title, items, the initial selection, a toggle, what it stands in for.
 * @returns The chosen value, or `null` on escape.
 */
export function showPicker<T>(
  tui: TUI,
  theme: Theme,
  options: PickerOptions<T>,
): Promise<T | null> {
  const { promise, resolve } = Promise.withResolvers<T | null>();
  const previousFocus = tui.focusedComponent;
  const replace = options.replace;
  const replaced = replace !== undefined && tui.children.includes(replace);
  const done = (value: T | null) => {
    const at = tui.children.indexOf(panel);
    tui.removeChild(panel);
    if (replaced) tui.insertChild(Math.max(0, at), replace);
    tui.setFocus(previousFocus);
    tui.requestRender();
    resolve(value);
  };
  const list = new SelectList(options.items, {
    theme,
    keybindings: tui.keybindings,
    initialIndex: options.initialIndex ?? 0,
    maxVisible: Math.max(3, Math.min(12, tui.terminal.rows - RESERVED_ROWS)),
    onSelect: (item) => done(item.value),
    onCancel: () => done(null),
  });
  const hints = (extra: string | undefined) => [
    "↑↓ move",
    "type to filter",
    "enter select",
    "esc cancel",
    ...(extra === undefined ? [] : [extra]),
  ];
  let toggles = 0;
  const panel = new Panel(list, {
    title: options.title,
    hints: hints(options.hint),
    theme,
    onKey: (data) => {
      const toggle = options.toggle;
      if (!toggle || !matchesKey(data, toggle.key)) return false;
      const view = toggle.view(++toggles);
      list.setItems(view.items);
      panel.setTitle(view.title);
      panel.setHints(hints(view.hint));
      tui.requestRender();
      return true;
    },
  });
  if (replaced) {
    tui.insertChild(tui.children.indexOf(replace), panel);
    tui.removeChild(replace);
  } else {
    tui.addChild(panel);
  }
  tui.setFocus(panel);
  tui.requestRender();
  return promise;
}
