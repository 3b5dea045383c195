/**
 * A user's shell environment for the tests of what the processes panto
 * starts inherit: the variables a developer's tools need (ssh-agent, `gh`,
 * a virtualenv, a project's own) and every kind of variable panto must
 * withhold (the built-in vendors' keys, a config's `apiKeyEnv`, an
 * `--api-key-env` name, a `tools.hideEnv` name), each with a value found
 * nowhere else.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BUILTIN_KEY_VARIABLES } from "../../cli/tools/child_env.ts";
import { childEnv } from "./child_env.ts";
import { FakeLlmServer } from "./fake_llm_server.ts";
import { STDIO_SERVER_COMMAND } from "./mcp_test_server.ts";

/** Variables the user's commands need: they must reach every process panto starts. */
export const USER_VARIABLES: Readonly<Record<string, string>> = {
  SSH_AUTH_SOCK: "/tmp/ssh-panto-test/agent.4242",
  GITHUB_TOKEN: "github-token-for-gh-7f3a",
  VIRTUAL_ENV: "/tmp/panto-test-venv",
  MYAPP_DATABASE_URL: "postgres://localhost/myapp_dev",
};

/** The config's `apiKeyEnv`, the `--api-key-env` name and the `tools.hideEnv` name. */
export const CONFIG_KEY_VARIABLE = "MY_CUSTOM_KEY";
export const FLAG_KEY_VARIABLE = "MY_FLAG_KEY";
export const HIDDEN_VARIABLE = "DB_PASSWORD";

/** Every variable panto withholds, with a distinct value. */
export const SECRET_VARIABLES: Readonly<Record<string, string>> = Object.fromEntries(
  [...BUILTIN_KEY_VARIABLES, CONFIG_KEY_VARIABLE, FLAG_KEY_VARIABLE, HIDDEN_VARIABLE].map((
    name,
    i,
  ) => [name, `secret-${i}-${name.toLowerCase()}-value`]),
);

/**
 * Checks a dump of a process's environment (`NAME=value` lines, as `env`
 * prints): every user variable with its value, no withheld variable by name
 * or by value.
 *
 * @param dump The `env` output.
 * @param where Which process, for the failure message.
 */
export function assertUserEnvironment(dump: string, where: string): void {
  for (const [name, value] of Object.entries(USER_VARIABLES)) {
    assert.ok(dump.includes(`${name}=${value}`), `${where} lacks ${name}:\n${dump}`);
  }
  assertNoSecret(dump, where);
  for (const name of Object.keys(SECRET_VARIABLES)) {
    assert.ok(!new RegExp(`^${name}=`, "m").test(dump), `${where} has ${name}`);
  }
}

/**
 * Checks that no withheld variable's value appears in `text`.
 *
 * @param text Anything a process printed or panto sent or stored.
 * @param where What it is, for the failure message.
 */
export function assertNoSecret(text: string, where: string): void {
  for (const [name, value] of Object.entries(SECRET_VARIABLES)) {
    assert.ok(!text.includes(value), `${where} holds the value of ${name}`);
  }
}

const DENO_DIR = childEnv("/").DENO_DIR!;

const EXTENSION = `export default (panto) => {
  panto.registerTool({
    decl: { name: "spawn_env", description: "env, run by an extension", inputSchema: { type: "object", properties: {} } },
    execute: async () => {
      const out = await new Deno.Command("env").output();
      return [{ type: "text", text: new TextDecoder().decode(out.stdout) }];
    },
  });
};
`;

/** What {@linkcode withUserSetup} gives a test. */
export interface UserSetup {
  server: FakeLlmServer;
  project: string;
  home: string;
  /** The environment of the shell the user starts panto from. */
  env: Record<string, string>;
}

/**
 * A project (with the extension `ext.ts`, whose tool `spawn_env` runs `env`)
 * and a home whose config uses the fake server (model `m`) with the key in
 * {@linkcode CONFIG_KEY_VARIABLE}, hides {@linkcode HIDDEN_VARIABLE} and
 * runs the test MCP server as `local`; the environment holds every user
 * and secret variable. All is removed afterwards.
 *
 * @param fn The test body.
 */
export async function withUserSetup(fn: (setup: UserSetup) => Promise<void>): Promise<void> {
  const server = await FakeLlmServer.start();
  const project = await Deno.makeTempDir({ prefix: "panto-project-" });
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  try {
    await Deno.writeTextFile(
      join(home, "config.json"),
      JSON.stringify({
        defaultModel: "m",
        providers: {
          mine: {
            api: "anthropic-messages",
            baseUrl: server.anthropicBaseUrl,
            apiKeyEnv: CONFIG_KEY_VARIABLE,
          },
        },
        models: { m: { provider: "mine", model: "m1" } },
        retry: { maxRetries: 0 },
        tools: { hideEnv: [HIDDEN_VARIABLE] },
        mcpServers: { local: { ...STDIO_SERVER_COMMAND, env: { DENO_DIR } } },
      }),
    );
    await Deno.writeTextFile(join(project, "ext.ts"), EXTENSION);
    const env = {
      ...childEnv(home),
      PANTO_HOME: home,
      NO_COLOR: "1",
      ...USER_VARIABLES,
      ...SECRET_VARIABLES,
    };
    await fn({ server, project, home, env });
  } finally {
    await server.close();
    await Deno.remove(project, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

/**
 * The text of each tool result in an Anthropic request body, by tool call id.
 *
 * @param body A request body the fake server recorded.
 */
export function toolResults(body: unknown): Map<string, string> {
  const results = new Map<string, string>();
  const messages = (body as { messages: { content: unknown }[] }).messages;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      const parts = typeof block.content === "string" ? [{ text: block.content }] : block.content;
      results.set(block.tool_use_id, parts.map((p: { text?: string }) => p.text ?? "").join(""));
    }
  }
  return results;
}
