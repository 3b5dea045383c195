import { errorMessage } from "../shared/error_message.ts";
import type { ControllerEvent } from "./controller_events.ts";

/**
 * The controller's listeners: every event goes to each of them, and a
 * warning told before anyone listens waits for the first listener.
 */
export class EventHub {
  readonly #listeners = new Set<(event: ControllerEvent) => void>();
  /** Warnings told before anyone subscribed, for the first subscriber. */
  #early: string[] = [];
  #reportingFailure = false;

  /**
   * Calls `listener` with every event from now on, after the warnings held
   * for the first one.
   *
   * @param listener Gets each event.
   * @returns Unsubscribes.
   */
  subscribe(listener: (event: ControllerEvent) => void): () => void {
    this.#listeners.add(listener);
    for (const text of this.#early.splice(0)) this.warn(text);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Tells a warning now, or to the first listener when none listens yet
   * (an MCP server failing while the view starts).
   *
   * @param text The warning.
   */
  warn(text: string): void {
    if (this.#listeners.size === 0) this.#early.push(text);
    else this.emit({ type: "notice", level: "warning", text });
  }

  /**
   * Tells every listener. A listener that throws (a view's bug) must not fail
   * the run, which would end the turn on screen while the agent went on: the
   * others still hear the event, and the failure becomes an error notice.
   *
   * @param event The event.
   */
  emit(event: ControllerEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#reportFailure(event, error);
      }
    }
  }

  #reportFailure(event: ControllerEvent, error: unknown): void {
    if (this.#reportingFailure) return;
    this.#reportingFailure = true;
    try {
      this.emit({
        type: "notice",
        level: "error",
        text: `Showing a ${event.type} event failed (${errorMessage(error)}); the run goes on`,
      });
    } finally {
      this.#reportingFailure = false;
    }
  }
}
