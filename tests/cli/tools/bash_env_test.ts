import assert from "node:assert/strict";
import { join } from "node:path";
import { keyVariables } from "../../../cli/tools/child_env.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { runPanto } from "../../support/run_panto.ts";
import { withProject } from "../../lib/tools/tool_fixture.ts";

const SECRETS: Record<string, string> = {
  ANTHROPIC_API_KEY: "sk-ant-SECRET-env-1",
  OPENAI_API_KEY: "sk-openai-SECRET-env-2",
  MY_CUSTOM_KEY: "custom-SECRET-env-3",
};

/** What the user's own commands need: it must reach them. */
const USER = { SSH_AUTH_SOCK: "/tmp/agent.sock", PANTO_HOME: "/tmp/their-panto-home" };

const RUNNER = new URL("./bash_env_runner.ts", import.meta.url).pathname;

/**
 * Runs `command` through the bash tool (or, with `shell`, as a `!command`)
 * in a child process that has the secrets set: not in this process, whose
 * environment the test files running in parallel share.
 */
async function runWithSecrets(
  root: string,
  command: string,
  options: { shell?: boolean; permissions?: string[] } = {},
): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...options.permissions ?? ["-A"],
      RUNNER,
      root,
      command,
      withheld.join(","),
      ...(options.shell ? ["shell"] : []),
    ],
    env: { ...SECRETS, ...USER },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  assert.equal(output.code, 0, decoder.decode(output.stderr));
  return decoder.decode(output.stdout);
}

function assertNoSecret(text: string, where: string): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    assert.ok(!text.includes(value), `${where} holds the value of ${name}`);
  }
}

function assertUserVariables(env: string): void {
  for (const [name, value] of Object.entries(USER)) {
    assert.match(env, new RegExp(`^${name}=${value}$`, "m"));
  }
}

const withheld = keyVariables({ providers: { mine: { apiKeyEnv: "MY_CUSTOM_KEY" } } });

Deno.test("bash: `env` shows no withheld key variable; the user's others (PANTO_HOME too), PATH and HOME remain", async () => {
  await withProject({}, async (root) => {
    const env = await runWithSecrets(root, "env");
    assertNoSecret(env, "bash's environment");
    assert.doesNotMatch(env, /^(ANTHROPIC_API_KEY|OPENAI_API_KEY|MY_CUSTOM_KEY)=/m);
    assertUserVariables(env);
    const usable = await runWithSecrets(root, 'echo "$PATH|$HOME"; command -v ls');
    assert.equal(usable.split("\n")[0], `${Deno.env.get("PATH")}|${Deno.env.get("HOME")}`);
    assert.match(usable, /\/ls$/m);
  });
});

Deno.test("!command: the user's shell command gets the same environment without keys", async () => {
  await withProject({}, async (root) => {
    const output = await runWithSecrets(root, "env", { shell: true });
    assert.match(output, /^ok\n/, output);
    assertUserVariables(output);
    assertNoSecret(output, "the !command's environment");
  });
});

Deno.test("bash under a narrow --allow-env: variables panto may not read still reach the command (they are the user's); the withheld keys do not", async () => {
  await withProject({}, async (root) => {
    const output = await runWithSecrets(root, "env", {
      permissions: [
        "--quiet",
        "--no-prompt",
        "--allow-run",
        "--allow-read",
        `--allow-env=HOME,PATH,${withheld.join(",")}`,
        "--ignore-env",
      ],
    });
    assertUserVariables(output);
    assert.match(output, /^HOME=/m);
    assertNoSecret(output, "the command's environment");
  });
});

Deno.test("panto -p: the model runs `env`; neither the request sent back nor the session file holds a key", async () => {
  const project = await Deno.makeTempDir();
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  const server = await FakeLlmServer.start();
  try {
    await Deno.writeTextFile(
      join(home, "config.json"),
      JSON.stringify({
        defaultModel: "m",
        providers: {
          mine: {
            api: "anthropic-messages",
            baseUrl: server.anthropicBaseUrl,
            apiKeyEnv: "MY_CUSTOM_KEY",
          },
        },
        models: { m: { provider: "mine", model: "m1" } },
      }),
    );
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "tool_use", id: "c1", name: "bash", input: { command: "env" } }],
    });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "done" }] });
    const run = await runPanto(["-p", "show the environment"], {
      cwd: project,
      env: { ...SECRETS, ...USER, PANTO_HOME: home, HOME: home },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length, 2);
    assert.equal(
      server.requests[0]!.headers["x-api-key"],
      SECRETS.MY_CUSTOM_KEY,
      "the key is used",
    );
    const followUp = JSON.stringify(server.requests[1]!.body);
    assert.match(followUp, /PATH=/, "the env output went back to the model");
    assertNoSecret(followUp, "the request sent back to the server");
    let files = 0;
    for await (const file of walk(home)) {
      if (file.endsWith("config.json")) continue;
      files++;
      assertNoSecret(await Deno.readTextFile(file), file);
    }
    assert.ok(files > 0, "a session file was written");
  } finally {
    await server.close();
    await Deno.remove(project, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile) yield path;
  }
}
