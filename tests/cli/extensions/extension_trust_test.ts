/**
 * A project's own extensions (`.panto/extensions`) run as code, so they load
 * only once the user trusted exactly those files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { confirmProjectTrust } from "../../../cli/config/trust_prompt.ts";
import { UsageError } from "../../../cli/shared/errors.ts";
import {
  formatUntrustedExtensions,
  settleExtensionTrust,
  untrustedProjectExtensions,
} from "../../../cli/extensions/extension_trust.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { runPanto } from "../../support/run_panto.ts";

interface Dirs {
  home: string;
  pantoHome: string;
  project: string;
  extension: string;
}

/** An extension that leaves a marker file in the project when it loads. */
function markerExtension(marker: string, variant = ""): string {
  return `// ${variant}
export default async function () {
  await Deno.writeTextFile(${JSON.stringify(marker)}, "loaded");
}
`;
}

async function withProject(fn: (dirs: Dirs) => Promise<void>): Promise<void> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto_ext_trust_" }));
  const project = join(home, "project");
  const dirs = {
    home,
    pantoHome: join(home, ".panto"),
    project,
    extension: join(project, ".panto", "extensions", "marker.ts"),
  };
  try {
    await Deno.mkdir(dirs.pantoHome);
    await Deno.mkdir(join(project, ".panto", "extensions"), { recursive: true });
    await Deno.writeTextFile(dirs.extension, markerExtension(join(project, "marker")));
    await fn(dirs);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("extension trust: refuse throws naming the module, ignore drops it, trust remembers it", async () => {
  await withProject(async (dirs) => {
    const home = join(dirs.pantoHome, "extensions", "mine.ts");
    const paths = [home, dirs.extension];
    await assert.rejects(
      settleExtensionTrust(paths, dirs.project, dirs.pantoHome, "refuse"),
      (error: unknown) =>
        error instanceof UsageError && error.message.includes(".panto/extensions/marker.ts") &&
        error.message.includes("--trust-project-config"),
    );
    const ignored = await settleExtensionTrust(paths, dirs.project, dirs.pantoHome, "ignore");
    assert.deepEqual(ignored.paths, [home], "the user's own extensions still load");
    assert.match(ignored.notice ?? "", /Not loading this project's extensions/);

    const trusted = await settleExtensionTrust(paths, dirs.project, dirs.pantoHome, "trust");
    assert.deepEqual(trusted.paths, paths);
    assert.equal(await untrustedProjectExtensions(dirs.project, dirs.pantoHome), undefined);

    await Deno.writeTextFile(dirs.extension, markerExtension("/tmp/elsewhere", "changed"));
    assert.ok(
      await untrustedProjectExtensions(dirs.project, dirs.pantoHome),
      "a changed module needs trust again",
    );
  });
});

Deno.test("extension trust: an added module needs trust again", async () => {
  await withProject(async (dirs) => {
    await settleExtensionTrust([dirs.extension], dirs.project, dirs.pantoHome, "trust");
    await Deno.writeTextFile(join(dirs.project, ".panto", "extensions", "second.ts"), "");
    const untrusted = await untrustedProjectExtensions(dirs.project, dirs.pantoHome);
    assert.equal(untrusted?.paths.length, 2);
  });
});

Deno.test("extension trust: the chat asks about the project's extensions; n ignores, y trusts", async () => {
  await withProject(async (dirs) => {
    const options = {
      pantoHome: dirs.pantoHome,
      cwd: dirs.project,
      env: (name: string) => (name === "HOME" ? dirs.home : undefined),
    };
    const asked: string[] = [];
    const io = (answer: string) => ({
      write: (text: string) => void asked.push(text),
      readLine: () => Promise.resolve(answer),
    });
    assert.equal(await confirmProjectTrust(options, false, io("n")), "ignore");
    assert.match(asked[0]!, /This project ships extensions:\n {2}\.panto\/extensions\/marker\.ts/);
    assert.equal(
      await confirmProjectTrust(options, false, io("n"), false),
      "refuse",
      "with --no-extensions nothing is asked",
    );
    asked.length = 0;
    assert.equal(await confirmProjectTrust(options, false, io("y")), "refuse");
    assert.equal(await untrustedProjectExtensions(dirs.project, dirs.pantoHome), undefined);
    asked.length = 0;
    assert.equal(await confirmProjectTrust(options, false, io("")), "refuse");
    assert.deepEqual(asked, [], "trusted extensions are not asked about");
  });
});

Deno.test("extension trust: print mode refuses an untrusted project extension before running it", async () => {
  const server = await FakeLlmServer.start();
  try {
    await withProject(async (dirs) => {
      const env = { HOME: dirs.home, PANTO_HOME: dirs.pantoHome };
      const marker = join(dirs.project, "marker");
      const args = ["-p", "hi", "--api", "openai-chat", "--base-url", server.openaiBaseUrl];
      const run = (...extra: string[]) =>
        runPanto([...args, "-m", "m1", ...extra], { cwd: dirs.project, env });

      const refused = await run();
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /ships extensions/);
      assert.equal(await exists(marker), false, "the extension did not run");
      assert.equal(server.requests.length, 0);

      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "ok" }] });
      const trusted = await run("--trust-project-config");
      assert.equal(trusted.code, 0, trusted.stderr);
      assert.equal(await exists(marker), true, "the trusted extension ran");
      await Deno.remove(marker);

      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "ok" }] });
      assert.equal((await run("--no-extensions")).code, 0);
      assert.equal(await exists(marker), false, "--no-extensions loads none");
    });
  } finally {
    await server.close();
  }
});

Deno.test("extension trust: a changed helper module the extension imports (in a subdirectory, or elsewhere in the project) needs trust again", async () => {
  await withProject(async (dirs) => {
    const helper = join(dirs.project, ".panto", "extensions", "lib", "helper.ts");
    const shared = join(dirs.project, "src", "shared.ts");
    await Deno.mkdir(join(dirs.project, ".panto", "extensions", "lib"));
    await Deno.mkdir(join(dirs.project, "src"));
    await Deno.writeTextFile(helper, 'export const greeting = "hi";\n');
    await Deno.writeTextFile(shared, "export const answer = 42;\n");
    await Deno.writeTextFile(
      dirs.extension,
      'import { greeting } from "./lib/helper.ts";\nimport { answer } from "../../src/shared.ts";\nexport default () => void [greeting, answer];\n',
    );
    const asked = await untrustedProjectExtensions(dirs.project, dirs.pantoHome);
    assert.ok(asked);
    const listed = formatUntrustedExtensions(asked);
    assert.match(listed, /\.panto\/extensions\/lib\/helper\.ts/);
    assert.match(listed, /src\/shared\.ts/);
    await settleExtensionTrust([dirs.extension], dirs.project, dirs.pantoHome, "trust");
    assert.equal(await untrustedProjectExtensions(dirs.project, dirs.pantoHome), undefined);

    await Deno.writeTextFile(helper, 'export const greeting = Deno.env.get("KEY");\n');
    assert.ok(
      await untrustedProjectExtensions(dirs.project, dirs.pantoHome),
      "a changed helper in a subdirectory needs trust again",
    );
    await settleExtensionTrust([dirs.extension], dirs.project, dirs.pantoHome, "trust");
    await Deno.writeTextFile(shared, "export const answer = 43;\n");
    assert.ok(
      await untrustedProjectExtensions(dirs.project, dirs.pantoHome),
      "a changed project file it imports needs trust again",
    );
  });
});
