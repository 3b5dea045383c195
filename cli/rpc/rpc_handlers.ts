/**
 * What each RPC command does to the session controller, and the data its
 * response carries.
 *
 * @module
 */
import { wireIdentity } from "@panto/lib";
import { modelChoices } from "../config/model_registry.ts";
import { UsageError } from "../shared/errors.ts";
import type { SessionController } from "../controller/session_controller.ts";
import { RpcApprovals } from "./rpc_approvals.ts";
import type { RpcCommand, RpcCommandType } from "./rpc_commands.ts";

/** A command's handler: the response's `data` (`undefined`: none), or a throw (an error response). */
type Handler<T extends RpcCommandType> = (
  controller: SessionController,
  command: Extract<RpcCommand, { type: T }>,
  approvals: RpcApprovals,
) => unknown;

/** The model in use, as `get_state` shows it. */
const currentModel = (controller: SessionController) => controller.state().model;

const handlers: { [T in RpcCommandType]: Handler<T> } = {
  prompt: async (controller, { message: typed, images, streamingBehavior }) => {
    // `/skill:name args` and `/template args` send what they stand for, as in the chat.
    const message = await controller.expandPromptCommand(typed) ?? typed;
    const wasBusy = controller.busy;
    if (wasBusy && streamingBehavior) {
      if (images?.length) {
        throw new UsageError("Images cannot be queued: send them once nothing runs");
      }
      if (streamingBehavior === "steer") controller.steer(message);
      else controller.followUp(message);
      return;
    }
    const run = controller.prompt({ text: message, ...(images ? { images } : {}) });
    // A refusal (busy) rejects at once; an accepted run's end comes as events (`run_end`).
    if (wasBusy) await run;
  },
  steer: (controller, { message }) => controller.steer(message),
  follow_up: (controller, { message }) => controller.followUp(message),
  abort: (controller) => controller.abort(),
  get_state: (controller) => controller.state(),
  get_messages: (controller) => ({ messages: controller.agent.conversation.messages }),
  get_available_models: (controller) => ({
    // The wire identity: no key and no header, the base URL without credentials.
    models: modelChoices(controller.config).map((choice) => ({
      alias: choice.alias,
      ...wireIdentity(choice.provider),
    })),
  }),
  get_mcp_servers: async (controller) => ({ servers: await controller.mcpStatus() }),
  set_model: (controller, { model, thinkingLevel }) => {
    controller.setModel(model, thinkingLevel);
    return currentModel(controller);
  },
  cycle_model: (controller, { direction }) => {
    controller.cycleModel(direction);
    return currentModel(controller);
  },
  set_thinking_level: (controller, { level }) => {
    controller.setThinkingLevel(level);
    return currentModel(controller);
  },
  compact: async (controller, { instructions }) => ({
    result: await controller.compact(instructions) ?? null,
  }),
  bash: async (controller, { command }) => await controller.runShell(command),
  new_session: async (controller) => {
    await controller.newSession();
    return { sessionId: controller.session.id };
  },
  switch_session: async (controller, { sessionId }) => {
    await controller.switchSession(sessionId);
    return { sessionId: controller.session.id };
  },
  fork: async (controller, { messageIndex }) => ({
    sessionId: await controller.fork(messageIndex),
  }),
  get_sessions: async (controller, { limit }) => ({
    sessions: await controller.listSessions(limit),
  }),
  set_session_name: async (controller, { name }) => {
    await controller.nameSession(name);
    return { name, pending: !controller.session.persisted };
  },
  approval_response: (_controller, { requestId, optionId, reason }, approvals) =>
    approvals.answer(requestId, optionId, reason),
};

/**
 * Carries out a command.
 *
 * @param controller The session controller.
 * @param command The command.
 * @param approvals The approval questions waiting for the client (default: none, so an
 *   `approval_response` is refused).
 * @returns The response's data (`undefined` for none).
 * @throws What the controller threw (busy, unknown model or session…): an error response.
 */
export async function handleCommand(
  controller: SessionController,
  command: RpcCommand,
  approvals: RpcApprovals = new RpcApprovals(() => {}),
): Promise<unknown> {
  const handler = handlers[command.type] as Handler<RpcCommandType>;
  return await handler(controller, command, approvals);
}
