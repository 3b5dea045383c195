/**
 * A bounded stack of editor snapshots for undo.
 *
 * @module
 */

/** How many undo steps are kept. */
const DEFAULT_DEPTH = 200;

/**
 * Snapshots to return to, newest last; the oldest are dropped past `depth`.
 *
 * @example
 * ```ts
 * import { UndoStack } from "./undo_stack.ts";
 * const undo = new UndoStack<string>();
 * undo.push("a");
 * undo.push("ab");
 * console.assert(undo.pop() === "ab" && undo.pop() === "a" && undo.pop() === undefined);
 * ```
 */
export class UndoStack<State> {
  readonly #states: State[] = [];

  /** Creates a stack that keeps at most `depth` snapshots. */
  constructor(readonly depth: number = DEFAULT_DEPTH) {}

  /** Number of snapshots held. */
  get size(): number {
    return this.#states.length;
  }

  /** Saves a snapshot to return to. */
  push(state: State): void {
    this.#states.push(state);
    if (this.#states.length > this.depth) this.#states.shift();
  }

  /** Takes the newest snapshot, or undefined when there is nothing to undo. */
  pop(): State | undefined {
    return this.#states.pop();
  }

  /** Forgets every snapshot. */
  clear(): void {
    this.#states.length = 0;
  }
}
