import type { Session, SessionStore } from "@panto/lib";
import { errorMessage } from "../shared/error_message.ts";
import type { ControllerEvent } from "./controller_events.ts";

/** What naming needs: the store, the current session, the views. */
export interface NamingContext {
  store: SessionStore;
  /** The current session (it changes while the store writes). */
  session(): Session;
  emit(event: ControllerEvent): void;
}

/**
 * The current session's name, and one given before the session was saved
 * (applied once it is, after its first answer, unless another session is
 * opened first).
 */
export class SessionNaming {
  readonly #context: NamingContext;
  #pending: string | undefined;
  #name: string | undefined;

  /**
   * Starts with the first session's name.
   *
   * @param context The store, the current session, the views.
   */
  constructor(context: NamingContext) {
    this.#context = context;
    this.#name = context.session().info.name;
  }

  /** The name to show: the pending one, else the session's. */
  get shown(): string | undefined {
    return this.#pending ?? this.#name;
  }

  /** Another session is being opened: a pending name was meant for the one left behind. */
  leave(): void {
    this.#pending = undefined;
  }

  /**
   * The current session changed (or moved in its tree).
   *
   * @param session The session now current.
   */
  adopted(session: Session): void {
    this.#name = session.info.name;
  }

  /**
   * Names the current session, or keeps the name until it is saved.
   *
   * @param name The name (empty: no name).
   */
  async name(name: string): Promise<void> {
    const { store, emit } = this.#context;
    const session = this.#context.session();
    if (!session.persisted) {
      this.#pending = name;
      emit({ type: "session_named", name, pending: true });
      return;
    }
    await store.rename(session.id, name);
    // The name belongs to the session, not to a branch: a later /tree move re-reads it from the info.
    if (name === "") delete session.info.name;
    else session.info.name = name;
    // Another session may have been opened while the store wrote: the name is not its.
    if (this.#context.session() !== session) return;
    this.#name = name;
    emit({ type: "session_named", name, pending: false });
  }

  /** Gives the session the pending name once it is saved; a failure is told as a notice. */
  async applyPending(): Promise<void> {
    const name = this.#pending;
    if (name === undefined || !this.#context.session().persisted) return;
    this.#pending = undefined;
    try {
      await this.name(name);
    } catch (error) {
      this.#context.emit({
        type: "notice",
        level: "error",
        text: `Could not name the session: ${errorMessage(error)}`,
      });
    }
  }
}
