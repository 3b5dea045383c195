/**
 * What the processes panto starts inherit, under the installed `panto`
 * command (the launcher and its grants): the user's whole environment —
 * ssh-agent's socket, a token for `gh`, a virtualenv, a project's own
 * variable — and none of the variables panto withholds (every vendor key
 * variable, the config's `apiKeyEnv`, `--api-key-env`, `tools.hideEnv`).
 * One test per kind of process: the bash tool (and its `/proc/self/environ`),
 * a process an extension spawns and an MCP stdio server in print mode; a
 * `!command` (RPC's `bash`). The chat's editor and clipboard tools are in
 * `tests/cli/chat/user_tools_tmux_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import {
  assertNoSecret,
  assertUserEnvironment,
  FLAG_KEY_VARIABLE,
  SECRET_VARIABLES,
  toolResults,
  USER_VARIABLES,
  withUserSetup,
} from "../../support/user_environment.ts";

async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) files.push(...await filesUnder(path));
    else if (entry.isFile) files.push(path);
  }
  return files;
}

const decoder = new TextDecoder();

Deno.test("installed panto -p: bash, /proc/self/environ, an extension's process and an MCP server get the user's environment without any withheld variable", async () => {
  await withInstalledPanto((panto) =>
    withUserSetup(async ({ server, project, home, env }) => {
      const mcpNames = [...Object.keys(USER_VARIABLES), ...Object.keys(SECRET_VARIABLES)];
      server.enqueue({
        kind: "turn",
        blocks: [
          {
            type: "tool_use",
            id: "bash",
            name: "bash",
            // cat opens its own /proc/self (a file opened before an exec reads as empty).
            input: {
              command: "env; echo ---; cat /proc/self/environ | tr '\\0' '\\n'; " +
                "echo ---; cat /proc/$PPID/environ | tr '\\0' '\\n'",
            },
          },
          { type: "tool_use", id: "ext", name: "spawn_env", input: {} },
          ...mcpNames.map((name) => ({
            type: "tool_use" as const,
            id: `mcp_${name}`,
            name: "local__env",
            input: { name },
          })),
        ],
      });
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "done" }] });
      const out = await new Deno.Command(panto, {
        args: ["-p", "show the environment", "-e", "ext.ts", "--api-key-env", FLAG_KEY_VARIABLE],
        cwd: project,
        clearEnv: true,
        env,
        stdin: "null",
      }).output();
      const stderr = decoder.decode(out.stderr);
      assert.equal(out.code, 0, stderr);
      assert.equal(decoder.decode(out.stdout).trim(), "done");
      assert.equal(
        server.requests[0]!.headers["x-api-key"],
        SECRET_VARIABLES[FLAG_KEY_VARIABLE],
        "panto itself still reads the key it withholds",
      );
      const results = toolResults(server.requests[1]!.body);
      const [bashEnv, procEnv, pantoEnv] = results.get("bash")!.split("---");
      assertUserEnvironment(bashEnv!, "the bash tool's env");
      assertUserEnvironment(procEnv!, "the bash tool's /proc/self/environ");
      // The program got its keys over the launcher's handoff, not in its environment.
      assertUserEnvironment(pantoEnv!, "panto's own /proc/<pid>/environ");
      assertUserEnvironment(results.get("ext")!, "a process an extension started");
      for (const [name, value] of Object.entries(USER_VARIABLES)) {
        assert.equal(results.get(`mcp_${name}`), value, `the MCP server's ${name}`);
      }
      for (const name of Object.keys(SECRET_VARIABLES)) {
        assert.equal(results.get(`mcp_${name}`), "(unset)", `the MCP server's ${name}`);
      }
      assertNoSecret(JSON.stringify(server.requests[1]!.body), "the request sent back");
      assertNoSecret(stderr, "panto's stderr");
      for (const file of await filesUnder(home)) {
        if (file.endsWith("config.json")) continue;
        assertNoSecret(await Deno.readTextFile(file), file);
      }
    })
  );
});

Deno.test("installed panto --mode rpc: a bash command (the chat's !command) gets the user's environment without any withheld variable", async () => {
  await withInstalledPanto((panto) =>
    withUserSetup(async ({ project, env }) => {
      const child = new Deno.Command(panto, {
        args: ["--mode", "rpc", "--api-key-env", FLAG_KEY_VARIABLE],
        cwd: project,
        clearEnv: true,
        env,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode('{"type":"bash","command":"env","id":"b"}\n'));
      await writer.close();
      const out = await child.output();
      assert.equal(out.code, 0, decoder.decode(out.stderr));
      const records = decoder.decode(out.stdout).split("\n").filter(Boolean).map((line) =>
        JSON.parse(line)
      );
      const answer = records.find((record) => record.id === "b");
      assert.equal(answer?.success, true, JSON.stringify(records));
      assert.equal(answer.data.failed, false);
      assertUserEnvironment(answer.data.output, "the !command's env");
    })
  );
});

Deno.test("run with your own narrower --allow-env: a key variable panto cannot withhold stops the start with a message naming it", async () => {
  await withUserSetup(async ({ project, env }) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "--allow-read",
        "--allow-write",
        "--allow-net",
        "--allow-run",
        "--allow-env=HOME,PANTO_HOME,PATH,MY_CUSTOM_KEY",
        "--ignore-env",
        new URL("../../../cli/main.ts", import.meta.url).pathname,
        "-p",
        "hi",
      ],
      cwd: project,
      clearEnv: true,
      env,
      stdin: "null",
    }).output();
    const stderr = decoder.decode(out.stderr);
    assert.equal(out.code, 1, stderr);
    assert.match(stderr, /cannot keep .*ANTHROPIC_API_KEY, .* from the commands it runs/);
    assertNoSecret(stderr, "the message");
  });
});
