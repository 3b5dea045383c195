/**
 * Extension UI: string-named events fired at each component-creation
 * boundary. Handlers may wrap or replace the component before it first
 * paints; custom events are how extensions put their own components on
 * screen.
 *
 * @module
 */
import type { Component } from "@panto/tui";
import type { CompactionData } from "./components/compaction_summary.ts";
import type { ToolUseData } from "./components/tool_use.ts";
import type { WelcomeData } from "./components/welcome.ts";

/**
 * The event a handler receives.
 *
 * @example
 * ```ts
 * import type { UiEvent } from "@panto/cli";
 * function describe(event: UiEvent<{ name: string }>): string {
 *   return `${event.name}: ${event.data.name}`;
 * }
 * ```
 */
export interface UiEvent<Data = unknown> {
  /** Event name ("tool", "my-panel"…). */
  readonly name: string;
  /** The structured data the event was fired with. */
  readonly data: Data;
  /**
   * The component currently chosen for this event: the built-in default at
   * first, or whatever an earlier handler set.
   */
  getComponent(): Component | undefined;
  /** Chooses the component (the last handler to set one wins). */
  setComponent(component: Component): void;
}

/**
 * A synchronous handler (it runs before the component first paints).
 *
 * @example
 * ```ts
 * import type { UiEventHandler } from "@panto/cli";
 * const hideBash: UiEventHandler<{ name: string }> = (event) => {
 *   if (event.data.name === "bash") {
 *     event.setComponent({ render: () => [], firstLineChanged: () => null, invalidate() {} });
 *   }
 * };
 * ```
 */
export type UiEventHandler<Data = unknown> = (event: UiEvent<Data>) => void;

/**
 * Data of the events panto fires itself.
 *
 * @example
 * ```ts
 * import type { BuiltinUiEvents } from "@panto/cli";
 * const tool: BuiltinUiEvents["tool"] = { callId: "c1", name: "read" };
 * console.assert(tool.callId === "c1");
 * ```
 */
export interface BuiltinUiEvents {
  /** The welcome banner at session start. */
  session_start: WelcomeData;
  /** A user message entering the transcript. */
  user_message: { text: string };
  /** A thinking block starting to stream. */
  thinking: Record<string, never>;
  /** Assistant text starting to stream. */
  assistant_text: Record<string, never>;
  /** A tool call starting (name known); one event per call id. */
  tool: ToolUseData;
  /** The conversation was compacted. */
  compaction: CompactionData;
}

/** Names of the built-in events. */
export const UI_EVENTS: {
  readonly sessionStart: "session_start";
  readonly userMessage: "user_message";
  readonly thinking: "thinking";
  readonly assistantText: "assistant_text";
  readonly tool: "tool";
  readonly compaction: "compaction";
} = {
  sessionStart: "session_start",
  userMessage: "user_message",
  thinking: "thinking",
  assistantText: "assistant_text",
  tool: "tool",
  compaction: "compaction",
};

/** Options for {@linkcode UiEvents}. */
export interface UiEventsOptions {
  /** Told about a handler that threw (the handler's changes are discarded). */
  onError?: (error: unknown, eventName: string) => void;
  /**
   * Puts the component chosen by an {@linkcode UiEvents.emit} on screen
   * (the app appends it to the transcript).
   */
  mount?: (component: Component, eventName: string, data: unknown) => void;
}

/**
 * The event hub. Handlers run in registration order; each sees the
 * current choice and may replace it (wrapping `getComponent()` is the
 * expected pattern). There is no "active component": every event yields its
 * own instance.
 *
 * @example Wrapping the component of one tool
 * ```ts
 * import type { Component } from "@panto/tui";
 * import { ToolUse } from "./components/tool_use.ts";
 * import { UiEvents } from "./ui_events.ts";
 * const events = new UiEvents();
 * events.on("tool", (e) => {
 *   if (e.data.name !== "skill") return;
 *   const inner = e.getComponent()!;
 *   const framed: Component = {
 *     render: (width) => ["[skill]", ...inner.render(width)],
 *     firstLineChanged: () => inner.firstLineChanged(),
 *     invalidate: () => inner.invalidate(),
 *   };
 *   e.setComponent(framed);
 * });
 * const data = { callId: "c1", name: "skill" };
 * const component = events.create("tool", data, () => new ToolUse(data));
 * console.assert(!(component instanceof ToolUse));
 * ```
 */
export class UiEvents {
  readonly #handlers = new Map<string, UiEventHandler<never>[]>();
  readonly #options: UiEventsOptions;

  /** Creates an empty hub. */
  constructor(options: UiEventsOptions = {}) {
    this.#options = options;
  }

  /** Registers a handler; returns a function that unregisters it. */
  on<K extends keyof BuiltinUiEvents>(
    name: K,
    handler: UiEventHandler<BuiltinUiEvents[K]>,
  ): () => void;
  /** Registers a handler for a custom event. */
  on<Data = unknown>(name: string, handler: UiEventHandler<Data>): () => void;
  on(name: string, handler: UiEventHandler<never>): () => void {
    const list = this.#handlers.get(name) ?? [];
    list.push(handler);
    this.#handlers.set(name, list);
    return () => {
      const index = list.indexOf(handler);
      if (index !== -1) list.splice(index, 1);
    };
  }

  /**
   * Fires a component-creation event with a built-in default and returns
   * the component to drive (the default unless a handler replaced it).
   * The app mounts the result itself.
   */
  create<K extends keyof BuiltinUiEvents>(
    name: K,
    data: BuiltinUiEvents[K],
    makeDefault: () => Component,
  ): Component;
  /** Fires a custom creation event with a default. */
  create<Data>(name: string, data: Data, makeDefault: () => Component): Component;
  create(name: string, data: unknown, makeDefault: () => Component): Component {
    return this.#fire(name, data, makeDefault) as Component;
  }

  /**
   * Fires an event that has no default (an extension's own). When a handler
   * chose a component it is handed to the `mount` option and returned.
   */
  emit<Data>(name: string, data: Data): Component | undefined {
    const component = this.#fire(name, data, undefined);
    if (component !== undefined) this.#options.mount?.(component, name, data);
    return component;
  }

  /** Runs the handlers; the default is built at most once, and only if asked for or needed. */
  #fire(
    name: string,
    data: unknown,
    makeDefault: (() => Component) | undefined,
  ): Component | undefined {
    let fallback: Component | undefined;
    const getDefault = () => (fallback ??= makeDefault?.());
    const choice: { component: Component | undefined; isSet: boolean } = {
      component: undefined,
      isSet: false,
    };
    const event: UiEvent<unknown> = {
      name,
      data,
      getComponent: () => (choice.isSet ? choice.component : getDefault()),
      setComponent: (component) => {
        choice.component = component;
        choice.isSet = true;
      },
    };
    for (const handler of [...(this.#handlers.get(name) ?? [])]) {
      const before = { ...choice };
      try {
        const result: unknown = (handler as UiEventHandler<unknown>)(event);
        if (result instanceof Promise) this.#reportAsync(result, name);
      } catch (error) {
        Object.assign(choice, before);
        this.#options.onError?.(error, name);
      }
    }
    return choice.isSet ? choice.component : getDefault();
  }

  /** Handlers must choose synchronously: the component paints right after. */
  #reportAsync(result: Promise<unknown>, name: string): void {
    const error = new Error(
      `A handler for UI event "${name}" returned a promise; handlers run before the first paint, so make it synchronous`,
    );
    this.#options.onError?.(error, name);
    result.catch((rejection) => this.#options.onError?.(rejection, name));
  }
}
