/**
 * Guards on what panto reads and echoes: config and AGENTS.md files must be
 * regular files of at most 1 MiB, key-shaped values never appear in config
 * errors, header values are checked, stdin prompts are capped, and bad key
 * bindings or key variables are usage errors.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Keybindings } from "@panto/tui";
import { agentConfig } from "../../../cli/config/agent_config.ts";
import { applyKeybindings } from "../../../cli/config/apply_keybindings.ts";
import { loadConfig } from "../../../cli/config/load_config.ts";
import { resolveModel } from "../../../cli/config/model_registry.ts";
import { UsageError } from "../../../cli/shared/errors.ts";
import { readStdinText } from "../../../cli/shared/stdio.ts";
import { buildSystemPrompt } from "../../../cli/setup/system_prompt.ts";
import { commandRuns } from "../../support/command_runs.ts";
import { runPanto } from "../../support/run_panto.ts";
import { PANTO_SH_COMMAND, pantoPaneEnv, tmuxAvailable, TmuxSession } from "../../support/tmux.ts";

const mkfifoAvailable = await commandRuns("mkfifo", ["--version"]);
if (!mkfifoAvailable) console.log("skipped: the named-pipe tests need mkfifo on PATH");

async function mkfifo(path: string): Promise<void> {
  const { success } = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(success, `mkfifo ${path}`);
}

/** A temporary panto home (with HOME above it) and a project directory. */
async function withDirs(
  fn: (dirs: { home: string; pantoHome: string; project: string }) => Promise<void>,
): Promise<void> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto_guards_" }));
  const dirs = { home, pantoHome: join(home, ".panto"), project: join(home, "project") };
  await Deno.mkdir(dirs.pantoHome);
  await Deno.mkdir(join(dirs.project, ".panto"), { recursive: true });
  try {
    await fn(dirs);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/** Loads the config of `dirs` (key actions checked), failing when that takes over 5 s (a hang on a pipe). */
function load(dirs: { home: string; pantoHome: string; project: string }) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("loading the config hung")), 5000);
  });
  const env = (name: string) => (name === "HOME" ? dirs.home : undefined);
  const keybindingActions = ["app.exit"];
  const options = { pantoHome: dirs.pantoHome, cwd: dirs.project, env, keybindingActions };
  return Promise.race([loadConfig(options), hang])
    .finally(() => clearTimeout(timer));
}

async function configError(
  dirs: { home: string; pantoHome: string; project: string },
): Promise<string> {
  try {
    await load(dirs);
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  assert.fail("the config was accepted");
}

Deno.test({
  name: "guards: a config file that is a named pipe is refused at once, naming the path",
  ignore: !mkfifoAvailable,
  async fn() {
    await withDirs(async (dirs) => {
      await mkfifo(join(dirs.pantoHome, "config.json"));
      assert.equal(
        await configError(dirs),
        "~/.panto/config.json is a named pipe (FIFO), not a regular file: the config must be a JSON file of at most 1 MiB",
      );
    });
  },
});

Deno.test("guards: a config symlinked to /dev/zero is refused; so is one over 1 MiB", async () => {
  await withDirs(async (dirs) => {
    const path = join(dirs.project, ".panto", "config.json");
    await Deno.symlink("/dev/zero", path);
    assert.match(
      await configError(dirs),
      /^~\/project\/\.panto\/config\.json is a device, not a regular file/,
    );
    await Deno.remove(path);
    await Deno.writeTextFile(path, `{"defaultModel": "${"x".repeat(1024 * 1024)}"}`);
    assert.match(
      await configError(dirs),
      /^~\/project\/\.panto\/config\.json is larger than 1 MiB: the config must be a JSON file of at most 1 MiB$/,
    );
  });
});

Deno.test({
  name: "guards: an AGENTS.md that is a pipe, /dev/zero or over 1 MiB is skipped with a warning",
  ignore: !mkfifoAvailable,
  async fn() {
    await withDirs(async (dirs) => {
      await mkfifo(join(dirs.pantoHome, "AGENTS.md"));
      await Deno.symlink("/dev/zero", join(dirs.home, "AGENTS.md"));
      await Deno.writeTextFile(join(dirs.project, "AGENTS.md"), "y".repeat(1024 * 1024 + 1));
      await Deno.mkdir(join(dirs.project, "sub"));
      await Deno.writeTextFile(join(dirs.project, "sub", "AGENTS.md"), "Use tabs.");
      const prompt = await buildSystemPrompt({
        cwd: join(dirs.project, "sub"),
        pantoHome: dirs.pantoHome,
        toolNames: [],
      });
      assert.deepEqual(prompt.agentsFiles, [join(dirs.project, "sub", "AGENTS.md")]);
      assert.deepEqual(prompt.warnings, [
        `Skipped ${dirs.pantoHome}/AGENTS.md: it is a named pipe (FIFO), not a regular file`,
        `Skipped ${dirs.home}/AGENTS.md: it is a device, not a regular file`,
        `Skipped ${dirs.project}/AGENTS.md: it is larger than 1 MiB`,
      ]);
    });
  },
});

const KEY_SHAPES = [
  "sk-ant-api03-Zq8vN2xR5tLw9kPm4Jd7",
  "sk-proj-Zq8vN2xR5tLw9kPm4Jd7Hc1",
  "sk-or-v1-9f8e7d6c5b4a39281706",
  "gsk_Zq8vN2xR5tLw9kPm4Jd7Hc1",
  "xai-Zq8vN2xR5tLw9kPm4Jd7Hc1",
  "AIzaSyZq8vN2xR5tLw9kPm4Jd7Hc1",
  "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
  "Zq8vN2xR5tLw9kPm4Jd7Hc1Bx6Ty3Wu0",
];

Deno.test("guards: config errors never echo a key, whatever its shape", async () => {
  for (const key of KEY_SHAPES) {
    const secretPart = key.slice(-12);
    const configs = [
      { [key]: true },
      { parallelTools: key },
      { defaultModel: key },
      { providers: { [`${key}`]: { api: "openai-chat", baseUrl: "http://localhost:1", x: 1 } } },
      { models: { m: { provider: key, model: "x" } } },
      { keybindings: { [key]: "ctrl+x" } },
    ];
    for (const config of configs) {
      await withDirs(async (dirs) => {
        await Deno.writeTextFile(join(dirs.pantoHome, "config.json"), JSON.stringify(config));
        const message = await configError(dirs);
        assert.ok(!message.includes(secretPart), `${key} echoed in: ${message}`);
        assert.match(message, /^~\/\.panto\/config\.json: /);
      });
    }
  }
});

Deno.test("guards: the unknown-key message keeps its shape with the key masked", async () => {
  await withDirs(async (dirs) => {
    await Deno.writeTextFile(
      join(dirs.pantoHome, "config.json"),
      JSON.stringify({ "sk-ant-api03-Zq8vN2xR5tLw9kPm4Jd7": 1 }),
    );
    assert.match(await configError(dirs), /: unknown key "sk-ant-…"; allowed keys: \$schema, /);
  });
});

Deno.test("guards: header names and values are checked, naming the provider and header, not the value", async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { "X-Key": "abc\r\nHost: evil" },
      /providers\.p\.headers\.X-Key: a header value must not contain a line break \(CR, LF\) or NUL/,
    ],
    [{ "X-Key": "abc\u0000def" }, /providers\.p\.headers\.X-Key: a header value must not contain/],
    [
      { "X Key": "v" },
      /providers\.p\.headers\["X Key"\]: invalid name "X Key": a header name may contain only/,
    ],
    [{ "X-Key:": "v" }, /invalid name "X-Key:": a header name may contain only/],
  ];
  for (const [headers, expected] of cases) {
    await withDirs(async (dirs) => {
      await Deno.writeTextFile(
        join(dirs.pantoHome, "config.json"),
        JSON.stringify({
          providers: { p: { api: "openai-chat", baseUrl: "http://h/v1", headers } },
        }),
      );
      const message = await configError(dirs);
      assert.match(message, expected);
      assert.ok(!message.includes("abc") && !message.includes("evil"), message);
    });
  }
});

Deno.test("guards: idleTimeoutMs per provider, else the top-level default, reaches the agent config", async () => {
  await withDirs(async (dirs) => {
    await Deno.writeTextFile(
      join(dirs.pantoHome, "config.json"),
      JSON.stringify({
        idleTimeoutMs: 45000,
        providers: { slow: { api: "openai-chat", baseUrl: "http://h/v1", idleTimeoutMs: 600000 } },
      }),
    );
    const config = await load(dirs);
    const env = () => "key";
    const slow = resolveModel(config, "slow/m", { env });
    assert.equal(agentConfig(config, slow).idleTimeoutMs, 600000);
    const vendor = resolveModel(config, "anthropic/m", { env });
    assert.equal(agentConfig(config, vendor).idleTimeoutMs, 45000);
    const adHoc = resolveModel(config, "m", { baseUrl: "http://h/v1", env });
    assert.equal(agentConfig(config, adHoc).idleTimeoutMs, 45000);

    await Deno.writeTextFile(join(dirs.pantoHome, "config.json"), JSON.stringify({}));
    assert.equal(agentConfig(await load(dirs), vendor).idleTimeoutMs, 45000);
    const none = resolveModel(await load(dirs), "anthropic/m", { env });
    assert.equal(agentConfig(await load(dirs), none).idleTimeoutMs, undefined);

    await Deno.writeTextFile(
      join(dirs.pantoHome, "config.json"),
      JSON.stringify({
        providers: { p: { api: "openai-chat", baseUrl: "http://h", idleTimeoutMs: 0 } },
      }),
    );
    assert.match(
      await configError(dirs),
      /providers\.p\.idleTimeoutMs: expected a number > 0, got 0/,
    );
  });
});

Deno.test("guards: --api-key-env naming an unset variable is a usage error naming it", async () => {
  await withDirs(async (dirs) => {
    const config = await load(dirs);
    for (const flags of [{ baseUrl: "http://127.0.0.1:9/v1" }, {}]) {
      assert.throws(
        () =>
          resolveModel(config, "anthropic/m", {
            ...flags,
            apiKeyEnv: "MY_UNSET_KEY",
            env: () => undefined,
          }),
        (error: unknown) =>
          error instanceof UsageError && error.exitCode === 2 &&
          error.message.includes("MY_UNSET_KEY") && /not set/.test(error.message),
      );
    }
  });
  const run = await runPanto([
    "-p",
    "hi",
    "-m",
    "m",
    "--base-url",
    "http://127.0.0.1:9/v1",
    "--api-key-env",
    "MY_UNSET_KEY",
  ]);
  assert.equal(run.code, 2);
  assert.match(
    run.stderr,
    /^panto: --api-key-env MY_UNSET_KEY: the variable MY_UNSET_KEY is not set/,
  );
});

Deno.test("guards: a malformed key binding is a one-line usage error naming the file and spec", () => {
  const config = {
    keybindings: { "app.exit": ["ctrl+d"], "app.clear": ["ctl+k"] },
    keybindingSources: { "app.clear": "~/.panto/config.json" },
  };
  assert.throws(
    () => applyKeybindings(new Keybindings(), config),
    (error: unknown) =>
      error instanceof UsageError && error.exitCode === 2 && !error.message.includes("\n") &&
      error.message.startsWith(
        '~/.panto/config.json: keybindings["app.clear"]: Unknown modifier "ctl" in key spec "ctl+k"; use ctrl, alt, shift or super',
      ),
  );
});

Deno.test({
  name: "guards: the chat exits 2 on a malformed key binding, with no stack trace",
  ignore: !tmuxAvailable,
  async fn() {
    await withDirs(async (dirs) => {
      await Deno.writeTextFile(
        join(dirs.pantoHome, "config.json"),
        JSON.stringify({ keybindings: { "app.exit": "hyper+q" } }),
      );
      const tmux = await TmuxSession.start(
        `${PANTO_SH_COMMAND} -m m --base-url http://127.0.0.1:9/v1; echo exit=$?; sleep 60`,
        { cwd: dirs.project, env: pantoPaneEnv(dirs.home, dirs.pantoHome) },
      );
      try {
        const screen = (await tmux.waitFor(/exit=\d/, { inHistory: true })).join("\n");
        assert.match(
          screen,
          /panto: ~\/\.panto\/config\.json: keybindings\["app\.exit"\]: Unknown modifier "hyper"/,
        );
        assert.match(screen, /exit=2/);
        assert.ok(!/\bat .*\.ts:\d+/.test(screen), `no stack trace:\n${screen}`);
      } finally {
        await tmux.close();
      }
    });
  },
});

Deno.test("guards: the stdin prompt is capped, naming the size and the cap", async () => {
  const chunks = [new Uint8Array(600), new Uint8Array(600)];
  const stream = ReadableStream.from(chunks);
  await assert.rejects(
    readStdinText(1000, stream),
    (error: unknown) =>
      error instanceof UsageError && error.exitCode === 2 &&
      error.message.startsWith(
        "The prompt on stdin is larger than 1000 bytes (panto stopped reading at 1200 bytes)",
      ),
  );
  assert.equal(
    await readStdinText(1000, ReadableStream.from([new TextEncoder().encode("hé")])),
    "hé",
  );

  const run = await runPanto(["-p", "-m", "m", "--base-url", "http://127.0.0.1:9/v1"], {
    stdin: "x".repeat(10 * 1024 * 1024 + 1),
  });
  assert.equal(run.code, 2);
  assert.match(
    run.stderr,
    /^panto: The prompt on stdin is larger than 10 MiB \(panto stopped reading at 10(\.\d+)? MiB\)/,
  );
});

Deno.test("guards: a key passed as -m is masked in the unknown-model error", async () => {
  await withDirs(async (dirs) => {
    const config = await load(dirs);
    const specs = [
      "sk-ant-api03-Zq8vN2xR5tLw9kPm4Jd7",
      "nope/sk-proj-Zq8vN2xR5tLw9kPm4Jd7",
      "sk-or-v1-9f8e7d6c5b4a39281706/x",
    ];
    for (const spec of specs) {
      assert.throws(
        () => resolveModel(config, spec, { env: () => "k" }),
        (error: unknown) =>
          error instanceof UsageError && /^Unknown (model|provider) /.test(error.message) &&
          !error.message.includes("Zq8vN2x") && !error.message.includes("9f8e7d6c"),
      );
    }
  });
});

Deno.test("guards: a key passed as a flag value is masked in the usage error", async () => {
  const run = await runPanto(["-p", "hi", "--thinking", "sk-ant-api03-Zq8vN2xR5tLw9kPm4Jd7"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--thinking.*got "sk-ant-…"/);
  assert.ok(!run.stderr.includes("Zq8vN2x"), run.stderr);
});

Deno.test("guards: a config can add keys to interrupt, clear and quit but never take esc, ctrl+c or ctrl+d away", () => {
  const table = new Keybindings({
    "app.interrupt": ["escape"],
    "app.clear": ["ctrl+c"],
    "app.exit": ["ctrl+d"],
  });
  applyKeybindings(table, {
    keybindings: {
      "app.interrupt": [],
      "app.clear": ["ctrl+x"],
      "app.exit": ["ctrl+q"],
      "app.expandTools": [],
    },
    keybindingSources: {},
  });
  assert.ok(table.matches("\x1b", "app.interrupt"), "esc still interrupts");
  assert.ok(table.matches("\x03", "app.clear") && table.matches("\x18", "app.clear"));
  assert.ok(table.matches("\x04", "app.exit") && table.matches("\x11", "app.exit"));
  assert.deepEqual(table.keys("app.expandTools"), [], "other actions can be unbound");
});
