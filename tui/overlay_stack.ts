/**
 * The overlays shown over the content ({@linkcode TUI.showOverlay}): their
 * stack, the focus they take and give back, and where each is placed in a
 * frame.
 *
 * @module
 */
import { type Component, CURSOR_MARKER } from "./component.ts";
import { dropControls } from "./line_sanitize.ts";
import { layoutOverlay, type OverlayOptions, overlayWidth } from "./overlay.ts";
import { expandTabs, visibleWidth } from "./text_width.ts";

/** Controls a shown overlay. */
export interface OverlayHandle {
  /** Removes the overlay and gives focus back. */
  close(): void;
  /** Hides or re-shows the overlay; hiding gives focus back, showing takes it. */
  setHidden(hidden: boolean): void;
  /** Whether the overlay is hidden. */
  readonly hidden: boolean;
}

/** An overlay placed for the current frame. */
export interface PlacedOverlay {
  /** The overlay's component. */
  component: Component;
  /** Its lines, sanitized, cut to its height. */
  lines: string[];
  /** The content line its first line is drawn over. */
  firstLine: number;
  /** The column of its left edge. */
  col: number;
  /** Its width in columns. */
  width: number;
  /** Where its cursor marker is (content line and column), or null. */
  marker: { line: number; col: number } | null;
}

/** What the overlays need of the engine: the focus, and a new frame when they change. */
export interface FocusOwner {
  /** The focused component, or null. */
  readonly focusedComponent: Component | null;
  /** Gives `component` the focus. */
  setFocus(component: Component | null): void;
  /** Schedules a frame. */
  requestRender(): void;
}

interface OverlayEntry {
  component: Component;
  options: OverlayOptions;
  hidden: boolean;
  focusBefore: Component | null;
}

/**
 * The stack of overlays: the last shown is drawn on top and has the focus;
 * closing or hiding one gives the focus back along the chain of what each
 * took it from.
 *
 * @example
 * ```ts ignore
 * const overlays = new OverlayStack(tui);
 * const handle = overlays.show(dialog, { anchor: "center" });
 * overlays.place(0, 80, 24)[0]?.component === dialog; // true
 * handle.close();
 * ```
 */
export class OverlayStack {
  readonly #owner: FocusOwner;
  #entries: OverlayEntry[] = [];
  /** Closed overlays, so a focus chain through them can be followed. */
  #closed = new WeakMap<Component, OverlayEntry>();

  /** @param owner The engine whose focus the overlays take. */
  constructor(owner: FocusOwner) {
    this.#owner = owner;
  }

  /** Shows `component` on top, focused, until the handle closes it. */
  show(component: Component, options: OverlayOptions): OverlayHandle {
    const entry: OverlayEntry = {
      component,
      options,
      hidden: false,
      focusBefore: this.#owner.focusedComponent,
    };
    this.#entries.push(entry);
    this.#owner.setFocus(component);
    return {
      close: () => this.#close(entry),
      setHidden: (hidden) => this.#setHidden(entry, hidden),
      get hidden() {
        return entry.hidden;
      },
    };
  }

  /**
   * Renders and places the visible overlays on a `width` × `rows` screen
   * whose top row shows content line `viewportTop`.
   */
  place(viewportTop: number, width: number, rows: number): PlacedOverlay[] {
    const placed: PlacedOverlay[] = [];
    for (const entry of this.#entries) {
      if (entry.hidden) continue;
      const rendered = entry.component.render(overlayWidth(entry.options, width));
      const rect = layoutOverlay(entry.options, rendered.length, width, rows);
      let marker: PlacedOverlay["marker"] = null;
      const lines = rendered.slice(0, rect.height).map((raw, index) => {
        const line = dropControls(expandTabs(raw));
        const at = line.indexOf(CURSOR_MARKER);
        if (at === -1) return line;
        marker = {
          line: viewportTop + rect.row + index,
          col: rect.col + visibleWidth(line.slice(0, at)),
        };
        return line.replaceAll(CURSOR_MARKER, "");
      });
      placed.push({
        component: entry.component,
        lines,
        firstLine: viewportTop + rect.row,
        col: rect.col,
        width: rect.width,
        marker,
      });
    }
    return placed;
  }

  #close(entry: OverlayEntry): void {
    const at = this.#entries.indexOf(entry);
    if (at === -1) return;
    this.#entries.splice(at, 1);
    this.#closed.set(entry.component, entry);
    this.#refocusAfter(entry);
  }

  #setHidden(entry: OverlayEntry, hidden: boolean): void {
    if (entry.hidden === hidden || !this.#entries.includes(entry)) return;
    entry.hidden = hidden;
    if (hidden) this.#refocusAfter(entry);
    else {
      // Shown again, it goes back on top: the focused overlay must be the visible one.
      this.#entries.splice(this.#entries.indexOf(entry), 1);
      this.#entries.push(entry);
      entry.focusBefore = this.#owner.focusedComponent;
      this.#owner.setFocus(entry.component);
    }
  }

  /** After `entry` went away: focus the top visible overlay, else what `entry` had taken focus from. */
  #refocusAfter(entry: OverlayEntry): void {
    if (this.#owner.focusedComponent === entry.component) {
      const top = this.#entries.findLast((other) => !other.hidden);
      this.#owner.setFocus(top?.component ?? this.#focusBefore(entry));
    }
    this.#owner.requestRender();
  }

  /** What `entry` took focus from, skipping overlays that are closed or hidden since. */
  #focusBefore(entry: OverlayEntry): Component | null {
    let candidate = entry.focusBefore;
    const seen = new Set<Component>();
    while (candidate !== null && !seen.has(candidate)) {
      seen.add(candidate);
      const owner = this.#entries.find((other) => other.component === candidate) ??
        this.#closed.get(candidate);
      if (owner === undefined || (!owner.hidden && this.#entries.includes(owner))) {
        return candidate;
      }
      candidate = owner.focusBefore;
    }
    return candidate;
  }
}
