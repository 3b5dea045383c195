/**
 * Puts an {@linkcode ApprovalGate} on a session controller for the chat,
 * RPC and print modes (`panto acp` asks its client itself).
 *
 * @module
 */
import type { ChatArgs } from "../setup/args.ts";
import type { SessionController } from "../controller/session_controller.ts";
import { ApprovalGate, type AskApproval } from "./approval_gate.ts";

/**
 * Makes the calls of the tools in `tools.requireApproval` wait for `ask`,
 * on every session the controller opens. "Always" answers are forgotten
 * when another conversation is opened (`new`, `switch`), kept across a
 * fork or a move in the tree. The list is read at each call (`/settings`
 * and `/reload` change it); nothing is installed with `--auto-approve`.
 *
 * @param controller The session controller.
 * @param args The command line (`--auto-approve`).
 * @param ask How the mode asks the user.
 * @returns The gate, or undefined with `--auto-approve`.
 *
 * @example
 * ```ts ignore
 * import { installApprovals } from "./install_approvals.ts";
 * installApprovals(controller, args, () => Promise.resolve({ decision: "once" }));
 * ```
 */
export function installApprovals(
  controller: SessionController,
  args: ChatArgs,
  ask: AskApproval,
): ApprovalGate | undefined {
  if (args.autoApprove) return undefined;
  // Read at each call, from the config in force (changed by /settings and /reload).
  const gate = new ApprovalGate({
    required: () => controller.config.tools.requireApproval ?? [],
    ask,
    files: {
      root: controller.cwd,
      allowedRoots: controller.config.tools.allowedPaths,
      pantoHome: controller.pantoHome,
    },
  });
  controller.setToolHooks({ beforeToolCall: gate.beforeToolCall });
  controller.subscribe((event) => {
    if (event.type === "session_changed" && (event.reason === "new" || event.reason === "switch")) {
      gate.forget();
    }
  });
  return gate;
}
