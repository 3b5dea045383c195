import { Agent, type Config, type Conversation, type Session, type Tool } from "@panto/lib";

/** What every session's agent is built from, whichever the session. */
export interface AgentSpec {
  config: Config;
  tools: readonly Tool[];
  systemPrompt: string;
}

/**
 * The one place an {@linkcode Agent} is built for a session: tools
 * registered, and the system prompt seeded (new session) or reconciled (a
 * changed prompt is recorded as a replace).
 *
 * @param spec Config, tools and system prompt.
 * @param session The session the agent persists to.
 * @param conversation Its loaded conversation.
 * @returns The agent.
 */
export async function buildAgent(
  spec: AgentSpec,
  session: Session,
  conversation: Conversation,
): Promise<Agent> {
  const agent = new Agent({ config: spec.config, session, conversation });
  for (const tool of spec.tools) agent.registerTool(tool);
  if (agent.conversation.systemPrompt() !== spec.systemPrompt) {
    await agent.setSystemPrompt(spec.systemPrompt);
  }
  return agent;
}
