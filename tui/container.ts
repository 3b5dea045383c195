/**
 * A component stacking its children vertically, with per-child line caches
 * so a frame re-renders only the children that report a change.
 *
 * @module
 */
import type { Component } from "./component.ts";

interface Slot {
  component: Component;
  /** The child's output at the last render, or `null` before its first render. */
  lines: readonly string[] | null;
  /** Where the child's lines started at the last render (-1: unknown, must recopy). */
  offset: number;
}

/** Cut of each container's last render (internal to the engine). */
const lastCuts = new WeakMap<Container, number>();

/**
 * The lowest line index that may differ between `container`'s last two
 * renders (its line count when nothing changed). Used by the engine and by
 * parent containers, which cannot diff a child container's reused array.
 */
export function lastRenderCut(container: Container): number {
  return lastCuts.get(container) ?? 0;
}

/** Where each child's lines ended at each container's last render (internal to the engine). */
const lastEnds = new WeakMap<Container, readonly number[]>();

/**
 * The line index just past each child's lines at `container`'s last render,
 * in child order (empty before the first render). The engine uses it to
 * tell which child a line belonged to.
 */
export function lastRenderChildEnds(container: Container): readonly number[] {
  return lastEnds.get(container) ?? [];
}

/** Index of the first line that differs between two renders (the shorter length if one is a prefix). */
function firstDifference(before: readonly string[], after: readonly string[]): number {
  const shared = Math.min(before.length, after.length);
  for (let i = 0; i < shared; i++) {
    if (before[i] !== after[i]) return i;
  }
  return before.length === after.length ? after.length : shared;
}

/**
 * Stacks child components top to bottom. Rendering walks the children
 * once: clean children above the first change are left in place, dirty
 * children are re-rendered, and clean children below a length change are
 * copied from their cached lines without being re-rendered.
 *
 * The array `render` returns is owned by the container and is updated in
 * place by the next `render`: copy it if you need to keep it.
 *
 * @example
 * ```ts
 * import { Container, type Component } from "@panto/tui";
 * const line = (text: string): Component => ({
 *   render: () => [text],
 *   firstLineChanged: () => null,
 *   invalidate: () => {},
 * });
 * const stack = new Container();
 * stack.addChild(line("one"));
 * stack.addChild(line("two"));
 * console.assert(stack.render(80).join("|") === "one|two");
 * ```
 */
export class Container implements Component {
  #slots: Slot[] = [];
  #lines: string[] = [];
  #width = -1;
  /** Lowest slot index added, removed or moved since the last render, or `null`. */
  #structureChangedAt: number | null = null;

  /** The children, top to bottom. */
  get children(): readonly Component[] {
    return this.#slots.map((slot) => slot.component);
  }

  /**
   * Where `child`'s lines started at the last render, or `null` when it is
   * not a child or was not drawn since it was added.
   */
  lineOf(child: Component): number | null {
    const slot = this.#slots.find((candidate) => candidate.component === child);
    return slot === undefined || slot.lines === null ? null : slot.offset;
  }

  /** Appends `child` at the bottom. */
  addChild(child: Component): void {
    this.insertChild(this.#slots.length, child);
  }

  /** Inserts `child` before position `index` (clamped to the valid range). */
  insertChild(index: number, child: Component): void {
    const at = Math.max(0, Math.min(index, this.#slots.length));
    this.#slots.splice(at, 0, { component: child, lines: null, offset: -1 });
    this.#markStructure(at);
  }

  /** Removes `child`; returns whether it was a child. */
  removeChild(child: Component): boolean {
    const at = this.#slots.findIndex((slot) => slot.component === child);
    if (at === -1) return false;
    this.#slots.splice(at, 1);
    this.#markStructure(at);
    return true;
  }

  /** Removes every child. */
  clear(): void {
    this.#slots = [];
    this.#markStructure(0);
  }

  /** The first changed line: the first dirty child's offset plus its own answer. */
  firstLineChanged(): number | null {
    if (this.#width === -1) return 0;
    let offset = 0;
    for (let i = 0; i < this.#slots.length; i++) {
      const slot = this.#slots[i]!;
      if (
        slot.lines === null || (this.#structureChangedAt !== null && i >= this.#structureChangedAt)
      ) {
        return offset;
      }
      const changed = slot.component.firstLineChanged();
      if (changed !== null) return offset + Math.min(changed, slot.lines.length);
      offset += slot.lines.length;
    }
    return this.#structureChangedAt === null ? null : offset;
  }

  /** Invalidates every child; the next render is complete. */
  invalidate(): void {
    for (const slot of this.#slots) slot.component.invalidate();
    this.#width = -1;
  }

  /** Renders dirty children and splices their lines in; see the class notes on ownership. */
  render(width: number): readonly string[] {
    const complete = width !== this.#width;
    if (complete && this.#width !== -1) {
      for (const slot of this.#slots) slot.component.invalidate();
    }
    let cut = -1;
    let position = 0;
    const ends: number[] = [];
    for (const slot of this.#slots) {
      const previous = complete ? null : slot.lines;
      const hint = previous === null ? 0 : slot.component.firstLineChanged();
      const moved = previous === null || slot.offset !== position;
      if (hint === null && !moved) {
        position += previous!.length;
        ends.push(position);
        continue;
      }
      const lines = hint === null ? previous! : slot.component.render(width);
      const changedFrom = moved ? 0 : this.#localCut(slot, previous, lines, hint);
      if (cut === -1 && changedFrom < lines.length) cut = position + changedFrom;
      for (let i = changedFrom; i < lines.length; i++) this.#lines[position + i] = lines[i]!;
      if (cut === -1 && lines.length !== previous?.length) cut = position + lines.length;
      slot.lines = lines;
      slot.offset = position;
      position += lines.length;
      ends.push(position);
    }
    if (cut === -1) cut = position;
    lastEnds.set(this, ends);
    this.#lines.length = position;
    lastCuts.set(this, cut);
    this.#width = width;
    this.#structureChangedAt = null;
    return this.#lines;
  }

  /**
   * Where a dirty child's output really starts to differ. A leaf's new array
   * is diffed against its old one (defending against an inaccurate hint); a
   * child container reuses its array, so its own cut is authoritative.
   */
  #localCut(
    slot: Slot,
    previous: readonly string[],
    lines: readonly string[],
    hint: number | null,
  ): number {
    if (slot.component instanceof Container) return lastRenderCut(slot.component);
    if (lines === previous) return Math.min(hint ?? 0, lines.length);
    return firstDifference(previous, lines);
  }

  #markStructure(index: number): void {
    this.#structureChangedAt = this.#structureChangedAt === null
      ? index
      : Math.min(this.#structureChangedAt, index);
  }
}
