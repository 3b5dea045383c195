/**
 * `tools.sandbox`: the model's bash commands in bubblewrap — the project and
 * `/tmp` writable, the rest read-only, `$PANTO_HOME` empty, the project's
 * `.panto` read-only, panto's processes out of sight, the network off when
 * asked. Skipped, saying why, where bubblewrap cannot run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bashTool } from "../../../lib/tools/bash.ts";
import { sandboxedCommand, SandboxError } from "../../../lib/tools/sandbox.ts";
import { call, withProject } from "./tool_fixture.ts";
import { commandRuns } from "../../support/command_runs.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import {
  assertUserEnvironment,
  FLAG_KEY_VARIABLE,
  toolResults,
  withUserSetup,
} from "../../support/user_environment.ts";

// Installed, and able to create namespaces here (a container may forbid them).
const bwrapWorks = await commandRuns(
  "bwrap",
  ["--ro-bind", "/", "/", "--proc", "/proc", "--unshare-pid", "--", "true"],
);
if (!bwrapWorks) {
  console.log(
    "skipped: sandbox_test needs bubblewrap (bwrap) installed and able to create namespaces here (apt-get install -y bubblewrap)",
  );
}

/** Runs `fn` with a project, a panto home holding a file, and a directory beside them. */
async function withPlaces(
  fn: (places: { root: string; home: string; elsewhere: string }) => Promise<void>,
): Promise<void> {
  await withProject({ ".panto/config.json": "{}", "readme.md": "hi\n" }, async (root) => {
    // Outside /tmp, which the sandbox leaves writable.
    const outer = await Deno.realPath(
      await Deno.makeTempDir({ dir: "/var/tmp", prefix: "panto_sandbox_" }),
    );
    try {
      const home = join(outer, "panto-home");
      const elsewhere = join(outer, "elsewhere");
      await Deno.mkdir(home);
      await Deno.mkdir(elsewhere);
      await Deno.writeTextFile(join(home, "session.jsonl"), "a session\n");
      await fn({ root, home, elsewhere });
    } finally {
      await Deno.remove(outer, { recursive: true });
    }
  });
}

function sandboxedBash(root: string, home: string, network = true) {
  return bashTool({
    root,
    sandbox: { settings: { enabled: true, network }, writable: [], hidden: [home] },
  });
}

Deno.test({
  name: "sandbox: the project and /tmp are writable; elsewhere, panto's home and .panto are not",
  ignore: !bwrapWorks,
  async fn() {
    await withPlaces(async ({ root, home, elsewhere }) => {
      const bash = sandboxedBash(root, home);
      const inside = await call(bash, { command: "echo made > made.txt && cat made.txt" });
      assert.equal(inside.isError, false, inside.text);
      assert.equal(await Deno.readTextFile(join(root, "made.txt")), "made\n");
      const tmp = await call(bash, {
        command: `echo t > /tmp/panto-sandbox-$$ && rm /tmp/panto-sandbox-$$`,
      });
      assert.equal(tmp.isError, false, tmp.text);
      const outside = await call(bash, { command: `echo x > ${join(elsewhere, "x")}` });
      assert.equal(outside.isError, true);
      assert.match(outside.text, /Read-only file system/);
      const config = await call(bash, { command: "echo '{\"x\":1}' > .panto/config.json" });
      assert.equal(config.isError, true, "the project's .panto stays read-only");
      assert.equal(await Deno.readTextFile(join(root, ".panto", "config.json")), "{}");
      const hidden = await call(bash, { command: `ls -A ${home}; echo listed` });
      assert.equal(hidden.text.trim(), "listed", "panto's home is empty inside");
    });
  },
});

Deno.test({
  name: "sandbox: panto's processes and their environments are out of sight",
  ignore: !bwrapWorks,
  async fn() {
    await withPlaces(async ({ root, home }) => {
      const seen = await call(sandboxedBash(root, home), {
        command:
          `test -e /proc/${Deno.pid} && echo visible || echo hidden; ls /proc | grep -c '^[0-9]'`,
      });
      const [visibility, count] = seen.text.trim().split("\n");
      assert.equal(visibility, "hidden");
      assert.ok(Number(count) < 10, `processes in sight: ${count}`);
    });
  },
});

Deno.test({
  name: "sandbox: network: false cuts the network (loopback too); the default keeps it",
  ignore: !bwrapWorks,
  async fn() {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const accepting = (async () => {
      for await (const conn of listener) conn.close();
    })();
    try {
      await withPlaces(async ({ root, home }) => {
        const connect = `exec 3<>/dev/tcp/127.0.0.1/${listener.addr.port} && echo connected`;
        const online = await call(sandboxedBash(root, home), { command: connect });
        assert.match(online.text, /connected/);
        const offline = await call(sandboxedBash(root, home, false), { command: connect });
        assert.equal(offline.isError, true);
        assert.doesNotMatch(offline.text, /connected/);
      });
    } finally {
      listener.close();
      await accepting.catch(() => {});
    }
  },
});

Deno.test("sandbox: off Linux it refuses to run the command rather than run it unsandboxed", () => {
  assert.throws(
    () => sandboxedCommand({ enabled: true }, { root: "/w" }, "bash", "ls", "darwin"),
    (error: Error) => error instanceof SandboxError && /Linux only .*darwin/.test(error.message),
  );
});

Deno.test({
  name:
    "sandbox: under the installed panto, tools.sandbox runs the model's commands in bubblewrap; the user's environment still reaches them",
  ignore: !bwrapWorks,
  async fn() {
    await withInstalledPanto((panto) =>
      withUserSetup(async ({ server, project, home, env }) => {
        const path = join(home, "config.json");
        const config = JSON.parse(await Deno.readTextFile(path));
        config.tools.sandbox = { enabled: true, network: false };
        await Deno.writeTextFile(path, JSON.stringify(config));
        server.enqueue({
          kind: "turn",
          blocks: [{
            type: "tool_use",
            id: "b",
            name: "bash",
            input: { command: "env; echo ---; ls /proc | grep -c '^[0-9]'; ls -A \"$PANTO_HOME\"" },
          }],
        });
        server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "done" }] });
        const out = await new Deno.Command(panto, {
          args: ["-p", "look around", "--api-key-env", FLAG_KEY_VARIABLE],
          cwd: project,
          clearEnv: true,
          env,
          stdin: "null",
        }).output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
        const text = toolResults(server.requests[1]?.body).get("b") ?? "";
        const [environment = "", rest = ""] = text.split("---");
        assertUserEnvironment(environment, "a sandboxed command");
        const [processes, ...homeEntries] = rest.trim().split("\n");
        assert.ok(Number(processes) < 10, `processes in sight: ${processes}`);
        assert.deepEqual(homeEntries.filter((line: string) => line !== "(no output)"), []);
      })
    );
  },
});
