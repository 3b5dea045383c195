/**
 * The approval state of a session: which calls need the user's approval
 * (`tools.requireApproval`), what the user allowed for the rest of the
 * session, and the `beforeToolCall` hook that asks, one question at a time,
 * through whichever view runs (the chat's dialog, an RPC client, print
 * mode's refusal).
 *
 * @module
 */
import type { BeforeToolCallContext, ToolCall, ToolCallDecision } from "@panto/lib";
import type { FileToolOptions } from "@panto/lib/tools";
import { AlwaysAllowed, alwaysScope } from "./always_allowed.ts";
import type { ChangePreview } from "./change_preview.ts";

/**
 * The answer to an approval question: run it once, run it and its like for
 * the rest of the session, reject it (with the user's reason, which the
 * model reads), or `refuse` it without anyone asked (print mode), with the
 * whole message the model reads.
 */
export type ApprovalAnswer =
  | { decision: "once" }
  | { decision: "always" }
  | { decision: "reject"; reason?: string }
  | { decision: "refuse"; message: string };

/** One question: the call, what "always" would allow, and the change it would make. */
export interface ApprovalRequest {
  /** The call, as the model made it. */
  call: ToolCall;
  /** What answering "always" allows, e.g. `every write call`. */
  alwaysLabel: string;
  /** The change an `edit` or `write` call would make. */
  preview?: ChangePreview;
}

/**
 * Asks the user; the signal aborts when the run is cancelled (the question
 * should close then: the call is not run whatever the answer).
 */
export type AskApproval = (
  request: ApprovalRequest,
  signal: AbortSignal,
) => Promise<ApprovalAnswer>;

/** Options for {@linkcode ApprovalGate}. */
export interface ApprovalGateOptions {
  /**
   * The tools whose calls need approval (`tools.requireApproval`), read at
   * each call: `/settings` and `/reload` change the list of a running chat.
   */
  required: () => readonly string[];
  /** Asks the user. */
  ask: AskApproval;
  /** Where the file tools work, to show an edit's or a write's change. */
  files: FileToolOptions;
}

/**
 * What the model reads when the user rejected a call (after `<tool> was
 * denied: `).
 *
 * @param reason The user's reason, if any.
 * @returns The message.
 *
 * @example
 * ```ts
 * import { rejectionMessage } from "./approval_gate.ts";
 * console.assert(rejectionMessage("use tabs") === "the user rejected this call and said: use tabs");
 * ```
 */
export function rejectionMessage(reason?: string): string {
  const said = reason?.trim();
  return said ? `the user rejected this call and said: ${said}` : "the user rejected this call";
}

/**
 * Asks before the calls of the listed tools, as a `beforeToolCall` hook:
 * "once" runs the call, "always" also runs the later calls it covers (see
 * {@linkcode alwaysScope}), a rejection refuses it with the user's reason.
 *
 * @example
 * ```ts
 * import { ApprovalGate } from "./approval_gate.ts";
 * const gate = new ApprovalGate({
 *   required: () => ["bash"],
 *   ask: () => Promise.resolve({ decision: "reject", reason: "not now" }),
 *   files: { root: Deno.cwd() },
 * });
 * const call = { id: "1", name: "bash", input: { command: "ls" } };
 * const tool = { name: "bash", description: "", inputSchema: {} };
 * const decision = await gate.beforeToolCall({ call, tool, signal: new AbortController().signal });
 * console.assert(decision?.action === "deny" && decision.reason.endsWith("said: not now"));
 * ```
 */
export class ApprovalGate {
  readonly #required: () => readonly string[];
  readonly #ask: AskApproval;
  readonly #files: FileToolOptions;
  readonly #always = new AlwaysAllowed();
  /** The question being asked: parallel calls wait their turn. */
  #turn: Promise<unknown> = Promise.resolve();

  /** Creates the gate. */
  constructor(options: ApprovalGateOptions) {
    this.#required = options.required;
    this.#ask = options.ask;
    this.#files = options.files;
  }

  /** Whether `call` would be asked about now. */
  needsApproval(call: ToolCall): boolean {
    return this.#required().includes(call.name) && !this.#always.allows(call);
  }

  /** Forgets what "always" allowed (another session begins). */
  forget(): void {
    this.#always.clear();
  }

  /** The hook: pass it as the agent's `beforeToolCall`. */
  readonly beforeToolCall = (
    { call, signal }: BeforeToolCallContext,
  ): Promise<ToolCallDecision | undefined> => {
    if (!this.needsApproval(call)) return Promise.resolve(undefined);
    const turn = this.#turn.then(() => this.#decide(call, signal));
    this.#turn = turn.catch(() => {});
    return turn;
  };

  async #decide(call: ToolCall, signal: AbortSignal): Promise<ToolCallDecision | undefined> {
    // An "always" given to the question before may cover this call now.
    if (!this.needsApproval(call)) return undefined;
    signal.throwIfAborted();
    // The diff code loads with the first question, not at every start.
    const { previewChange } = await import("./change_preview.ts");
    const preview = await previewChange(call, this.#files, signal);
    const request: ApprovalRequest = {
      call,
      alwaysLabel: alwaysScope(call).label,
      ...(preview ? { preview } : {}),
    };
    const answer = await this.#ask(request, signal);
    switch (answer.decision) {
      case "always":
        this.#always.remember(call);
        return undefined;
      case "once":
        return undefined;
      case "reject":
        return { action: "deny", reason: rejectionMessage(answer.reason) };
      case "refuse":
        return { action: "deny", reason: answer.message };
    }
  }
}
