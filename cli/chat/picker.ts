/**
 * Pickers drawn as a bordered panel in place of the editor (or, on an empty
 * screen, at the top): never over the transcript.
 *
 * @module
 */
import {
  type Component,
  Editor,
  matchesKey,
  Panel,
  type SelectItem,
  SelectList,
  type Theme,
  type TUI,
} from "@panto/tui";
import { errorMessage } from "../shared/error_message.ts";

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

/**
 * A key that asks for a line of text about the selected item (a label),
 * typed in a box shown where the list was; enter gives it to `submit`, esc
 * goes back to the list.
 */
export interface PickerInput<T> {
  /** The key, as {@linkcode matchesKey} names it (e.g. `ctrl+l`). */
  key: string;
  /** Its hint in the list's footer (e.g. `ctrl+l label`). */
  hint: string;
  /** The box's title, starting text and hint (what enter does with an empty line) for `item`. */
  open(item: SelectItem<T>): { title: string; text: string; hint: string };
  /**
   * Uses the text typed for `value` (trimmed, maybe empty); resolves with
   * what the picker shows afterwards, or rejects with why it could not.
   */
  submit(value: T, text: string): Promise<PickerContent<T>>;
}

/** What a picker lists: its first view, a toggle to others, a text input about an item. */
export interface PickerContent<T> extends PickerView<T> {
  /** A key that switches to another view. */
  toggle?: PickerToggle<T>;
  /** A key that asks for text about the selected item. */
  input?: PickerInput<T>;
}

/**
 * An item whose choice first asks for a line of text (e.g. instructions),
 * typed in a box shown where the list was: enter closes the picker with
 * `choose(text)`, esc (or ctrl+c) closes it with `null`, as esc in the list.
 */
export interface PickerAsk<T> {
  /** The item that asks (compared with `===`). */
  value: T;
  /** The box's title. */
  title: string;
  /** The box's key hints (what enter, an empty line and esc do). */
  hints: readonly string[];
  /** The picker's value for the text typed (trimmed, maybe empty). */
  choose(text: string): T;
}

/** Options for {@linkcode showPicker}. */
export interface PickerOptions<T> extends PickerContent<T> {
  /** Index of the item selected at first. */
  initialIndex?: number;
  /** Text the filter starts with (`/model son` opens the list filtered by "son"). */
  initialFilter?: string;
  /** An item whose choice asks for a line of text first. */
  ask?: PickerAsk<T>;
  /** The component the panel stands in for while open (the editor); without it, the panel goes last. */
  replace?: Component;
  /** Called when another item is highlighted (moving, filtering), e.g. to preview it. */
  onHighlight?: (value: T) => void;
}

/** Rows the chat keeps outside the list (border, filter, footer, a line of transcript). */
const RESERVED_ROWS = 8;

/**
 * Shows a filterable list in a bordered panel with a title and key hints,
 * in the place of `options.replace`, focused until a choice or escape.
 *
 * @param tui The engine.
 * @param theme Colours.
 * @param options Title, items, the initial selection, a toggle, a text input, what it stands in for.
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
    onSelect: ({ value }) => {
      const { ask } = options;
      if (ask === undefined || value !== ask.value) return done(value);
      const box = { title: ask.title, text: "", hints: ask.hints };
      askText(tui, theme, panel, box).then((text) => done(text === null ? null : ask.choose(text)));
    },
    onCancel: () => done(null),
    onHighlight: (item) => options.onHighlight?.(item.value),
  });
  if (options.initialFilter) list.setFilter(options.initialFilter);
  let content: PickerContent<T> = options;
  let toggles = 0;
  const hints = (view: PickerView<T>) => [
    "↑↓ move",
    "type to filter",
    "enter select",
    "esc cancel",
    ...(view.hint === undefined ? [] : [view.hint]),
    ...(content.input === undefined ? [] : [content.input.hint]),
  ];
  const show = (view: PickerView<T>) => {
    list.setItems(view.items);
    panel.setTitle(view.title);
    panel.setHints(hints(view));
    tui.requestRender();
  };
  const panel = new Panel(list, {
    title: options.title,
    hints: hints(options),
    theme,
    onKey: (data) => {
      const { toggle, input } = content;
      if (toggle && matchesKey(data, toggle.key)) {
        show(toggle.view(++toggles));
        return true;
      }
      if (!input || !matchesKey(data, input.key)) return false;
      const item = list.selectedItem;
      if (item === undefined) return true;
      const { hint, ...box } = input.open(item);
      askText(
        tui,
        theme,
        panel,
        { ...box, hints: ["enter save", hint, "esc back"] },
        async (text) => {
          content = await input.submit(item.value, text);
          show(toggles === 0 || !content.toggle ? content : content.toggle.view(toggles));
          list.selectValue(item.value);
        },
      );
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

/**
 * Shows a one-line text box in place of `panel` until enter (which calls
 * `submit` with the trimmed text, and goes back once it resolves; a
 * rejection is shown in the box's title) or esc or ctrl+c (back, nothing
 * done).
 *
 * @returns Once back: the text saved, or `null` on esc.
 */
function askText(
  tui: TUI,
  theme: Theme,
  panel: Panel,
  ask: { title: string; text: string; hints: readonly string[] },
  submit: (text: string) => Promise<void> = () => Promise.resolve(),
): Promise<string | null> {
  const { promise, resolve } = Promise.withResolvers<string | null>();
  const editor = new Editor({
    theme,
    keybindings: tui.keybindings,
    maxRows: 1,
    requestRender: () => tui.requestRender(),
  });
  editor.setText(ask.text);
  const swap = (from: Component, to: Component) => {
    const at = tui.children.indexOf(from);
    tui.removeChild(from);
    tui.insertChild(Math.max(0, at), to);
    tui.setFocus(to);
    tui.requestRender();
  };
  const back = (text: string | null) => {
    swap(box, panel);
    resolve(text);
  };
  let saving = false;
  const save = () => {
    saving = true;
    const text = editor.getText().replace(/\s+/g, " ").trim();
    submit(text).then(
      () => back(text),
      (error) => {
        saving = false;
        box.setTitle(errorMessage(error));
        tui.requestRender();
      },
    );
  };
  const box = new Panel(editor, {
    title: ask.title,
    hints: ask.hints,
    theme,
    onKey: (data) => {
      const escape = matchesKey(data, "escape") || matchesKey(data, "ctrl+c");
      if (!escape && !matchesKey(data, "enter")) return false;
      // Enter and esc wait while saving: the box goes once the save is done.
      if (saving) return true;
      if (escape) back(null);
      else save();
      return true;
    },
  });
  swap(panel, box);
  return promise;
}
