/**
 * A test component: a mutable list of lines that reports the first changed
 * index honestly (or, with `lie`, reports nothing to test the defences).
 *
 * @module
 */
import type { Component } from "../../tui/component.ts";
import type { TUI } from "../../tui/tui.ts";
import type { VirtualTerminal } from "../support/virtual_terminal.ts";

/** A component whose lines tests edit directly. */
export class Lines implements Component {
  #lines: string[];
  #dirtyFrom: number | null = 0;
  renders = 0;
  focused?: boolean;
  inputs: string[] = [];

  constructor(lines: readonly string[] = []) {
    this.#lines = [...lines];
  }

  get lines(): readonly string[] {
    return this.#lines;
  }

  set(lines: readonly string[]): void {
    const shared = Math.min(lines.length, this.#lines.length);
    let first = 0;
    while (first < shared && lines[first] === this.#lines[first]) first++;
    this.#lines = [...lines];
    this.#mark(first);
  }

  append(...lines: string[]): void {
    this.#mark(this.#lines.length);
    this.#lines.push(...lines);
  }

  edit(index: number, line: string): void {
    this.#lines[index] = line;
    this.#mark(index);
  }

  render(_width: number): readonly string[] {
    this.renders++;
    this.#dirtyFrom = null;
    return [...this.#lines];
  }

  firstLineChanged(): number | null {
    return this.#dirtyFrom;
  }

  invalidate(): void {
    this.#dirtyFrom = 0;
  }

  handleInput(data: string): void {
    this.inputs.push(data);
  }

  #mark(index: number): void {
    this.#dirtyFrom = this.#dirtyFrom === null ? index : Math.min(this.#dirtyFrom, index);
  }
}

/** Renders a frame synchronously and waits for the emulator to catch up. */
export async function frame(tui: TUI, terminal: VirtualTerminal): Promise<void> {
  tui.renderNow();
  await terminal.flush();
}

/**
 * What a fresh terminal of the same size shows after printing `lines`
 * top to bottom: the tail that fits, padded with empty rows.
 */
export function expectedScreen(lines: readonly string[], rows: number): string[] {
  const tail = lines.slice(Math.max(0, lines.length - rows)).map((line) => line.trimEnd());
  while (tail.length < rows) tail.push("");
  return tail;
}
