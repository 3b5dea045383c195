/**
 * Approvals in RPC mode: an `approval_request` event the client answers
 * with an `approval_response` command, and an `approval_resolved` event
 * once the question is closed (answered, or cancelled by an abort).
 * Options and their ids follow ACP's `session/request_permission`.
 *
 * @module
 */
import type { ApprovalAnswer, ApprovalRequest } from "../approvals/approval_gate.ts";
import { UsageError } from "../shared/errors.ts";

/** The answers a client may give, as ACP names their kinds. */
export const APPROVAL_OPTION_IDS = ["allow", "always", "reject"] as const;

/** One of {@linkcode APPROVAL_OPTION_IDS}. */
export type ApprovalOptionId = typeof APPROVAL_OPTION_IDS[number];

/** How a question was closed, in `approval_resolved`. */
type Outcome = ApprovalOptionId | "cancelled";

/** A question waiting for the client. */
interface Waiting {
  resolve: (answer: ApprovalAnswer) => void;
  /** Resolves it as refused (the input ended). */
  refuse: () => void;
  close: () => void;
}

/**
 * The questions waiting for the client, by request id. A question waits
 * without a time limit until it is answered or its run is aborted.
 *
 * @example
 * ```ts
 * import { RpcApprovals } from "./rpc_approvals.ts";
 * const sent: object[] = [];
 * const approvals = new RpcApprovals((record) => sent.push(record));
 * const call = { id: "c1", name: "bash", input: { command: "ls" } };
 * const answer = approvals.ask({ call, alwaysLabel: "bash commands starting with `ls`" }, new AbortController().signal);
 * approvals.answer("approval-1", "reject", "not here");
 * console.assert((await answer).decision === "reject");
 * ```
 */
export class RpcApprovals {
  readonly #send: (record: object) => void;
  readonly #waiting = new Map<string, Waiting>();
  #count = 0;
  /** Set at the end of input: no answer can come any more. */
  #inputEnded = false;

  /** @param send Writes an event to the client. */
  constructor(send: (record: object) => void) {
    this.#send = send;
  }

  /**
   * Sends an `approval_request` and waits for its answer; an abort closes
   * it as `cancelled` (the lib then ends the call as aborted).
   */
  readonly ask = (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> => {
    if (this.#inputEnded) return Promise.resolve(unanswerable(request));
    const requestId = `approval-${++this.#count}`;
    const { promise, resolve } = Promise.withResolvers<ApprovalAnswer>();
    const cancel = () => {
      this.#close(requestId, "cancelled");
      resolve({ decision: "reject" });
    };
    this.#waiting.set(requestId, {
      resolve,
      refuse: () => resolve(unanswerable(request)),
      close: () => signal.removeEventListener("abort", cancel),
    });
    signal.addEventListener("abort", cancel, { once: true });
    this.#send({
      type: "approval_request",
      requestId,
      toolCall: request.call,
      ...(request.preview ? { preview: request.preview } : {}),
      options: [
        { optionId: "allow", name: "Allow once", kind: "allow_once" },
        { optionId: "always", name: `Always allow ${request.alwaysLabel}`, kind: "allow_always" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    if (signal.aborted) cancel();
    return promise;
  };

  /**
   * Answers a waiting question (the `approval_response` command).
   *
   * @param requestId The `requestId` of its `approval_request`.
   * @param optionId The option chosen.
   * @param reason Why it was rejected: the model reads it.
   * @throws {UsageError} When no question of that id is waiting.
   */
  answer(requestId: string, optionId: ApprovalOptionId, reason?: string): void {
    const waiting = this.#waiting.get(requestId);
    if (!waiting) {
      throw new UsageError(
        `No approval request ${
          JSON.stringify(requestId)
        } is waiting: it was answered already, its run was aborted, or the id is wrong (use the requestId of an approval_request event)`,
      );
    }
    this.#close(requestId, optionId);
    waiting.resolve(answerFor(optionId, reason));
  }

  /**
   * The client's input ended: the questions waiting are closed as
   * `cancelled` and refused, and later calls are refused without a
   * question, so that the run can finish instead of waiting forever.
   */
  endOfInput(): void {
    this.#inputEnded = true;
    for (const [requestId, waiting] of [...this.#waiting]) {
      this.#close(requestId, "cancelled");
      waiting.refuse();
    }
  }

  #close(requestId: string, outcome: Outcome): void {
    const waiting = this.#waiting.get(requestId);
    if (!waiting) return;
    this.#waiting.delete(requestId);
    waiting.close();
    this.#send({ type: "approval_resolved", requestId, outcome });
  }
}

/** The refusal of a call nobody can answer any more. */
function unanswerable({ call }: ApprovalRequest): ApprovalAnswer {
  return {
    decision: "refuse",
    message:
      `${call.name} needs the user's approval (tools.requireApproval) and the RPC client's input has ended, so no one can give it`,
  };
}

function answerFor(optionId: ApprovalOptionId, reason: string | undefined): ApprovalAnswer {
  if (optionId === "allow") return { decision: "once" };
  if (optionId === "always") return { decision: "always" };
  return reason === undefined ? { decision: "reject" } : { decision: "reject", reason };
}
