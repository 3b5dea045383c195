import assert from "node:assert/strict";
import { join } from "node:path";
import { discoverExtensions } from "../../../cli/extensions/discover.ts";
import { CliError, UsageError } from "../../../cli/shared/errors.ts";

/** A temporary panto home and project with the given files (paths relative to the temp root). */
async function withLayout(
  files: readonly string[],
  fn: (dirs: { root: string; home: string; project: string }) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto_discover_" }));
  try {
    for (const file of files) {
      const path = join(root, file);
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await Deno.writeTextFile(path, "export default () => {};\n");
    }
    await fn({ root, home: join(root, "home"), project: join(root, "project") });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("discoverExtensions: home directory, then project directory (each by name), then -e paths", async () => {
  await withLayout([
    "home/extensions/b.ts",
    "home/extensions/a.js",
    "home/extensions/Z.ts",
    "home/extensions/c.mts",
    "home/extensions/d.mjs",
    "home/extensions/notes.txt",
    "home/extensions/.hidden.ts",
    "home/extensions/types.d.ts",
    "home/extensions/folder.ts/inner.ts",
    "elsewhere/target.ts",
    "project/.panto/extensions/z.ts",
    "project/.panto/extensions/a.ts",
    "project/tools/mine.ts",
    "abs.js",
  ], async ({ root, home, project }) => {
    const homeExt = join(home, "extensions");
    await Deno.symlink(join(root, "elsewhere/target.ts"), join(homeExt, "linked.ts"));
    await Deno.symlink(join(root, "missing.ts"), join(homeExt, "dangling.ts"));
    const paths = await discoverExtensions({
      pantoHome: home,
      cwd: project,
      extra: ["tools/mine.ts", join(root, "abs.js")],
      includeDefaults: true,
    });
    assert.deepEqual(paths, [
      join(homeExt, "Z.ts"),
      join(homeExt, "a.js"),
      join(homeExt, "b.ts"),
      join(homeExt, "c.mts"),
      join(homeExt, "d.mjs"),
      join(homeExt, "linked.ts"),
      join(project, ".panto/extensions/a.ts"),
      join(project, ".panto/extensions/z.ts"),
      join(project, "tools/mine.ts"),
      join(root, "abs.js"),
    ]);
  });
});

Deno.test("discoverExtensions: --no-extensions keeps only -e paths; a path found twice is listed once", async () => {
  await withLayout(
    ["home/extensions/a.ts", "project/.panto/extensions/b.ts"],
    async ({ home, project }) => {
      const extra = [".panto/extensions/b.ts"];
      assert.deepEqual(
        await discoverExtensions({ pantoHome: home, cwd: project, extra, includeDefaults: false }),
        [join(project, ".panto/extensions/b.ts")],
      );
      assert.deepEqual(
        await discoverExtensions({ pantoHome: home, cwd: project, extra, includeDefaults: true }),
        [join(home, "extensions/a.ts"), join(project, ".panto/extensions/b.ts")],
      );
    },
  );
});

Deno.test("discoverExtensions: missing directories are fine", async () => {
  await withLayout([], async ({ home, project }) => {
    assert.deepEqual(
      await discoverExtensions({ pantoHome: home, cwd: project, extra: [], includeDefaults: true }),
      [],
    );
  });
});

Deno.test("discoverExtensions: a bad -e path is a usage error naming it", async () => {
  await withLayout(["project/notes.txt", "project/dir.ts/x.ts"], async ({ home, project }) => {
    const discover = (path: string) =>
      discoverExtensions({ pantoHome: home, cwd: project, extra: [path], includeDefaults: false });
    await assert.rejects(discover("missing.ts"), (error) => {
      assert.ok(error instanceof UsageError);
      assert.equal(
        error.message,
        `-e missing.ts: no such file ${join(project, "missing.ts")}; check the path`,
      );
      return true;
    });
    await assert.rejects(discover("notes.txt"), (error) => {
      assert.ok(error instanceof UsageError);
      assert.match(
        error.message,
        /^-e notes\.txt: an extension must be a \.ts, \.mts, \.js, \.mjs file, got "notes\.txt"$/,
      );
      return true;
    });
    await assert.rejects(discover("dir.ts"), (error) => {
      assert.ok(error instanceof UsageError);
      assert.equal(error.message, `-e dir.ts: ${join(project, "dir.ts")} is not a file`);
      return true;
    });
  });
});

Deno.test("discoverExtensions: a directory panto may not read is reported with the flag to add, without a prompt", async () => {
  await withLayout(
    ["home/extensions/a.ts", "project/.panto/extensions/b.ts"],
    async ({ home, project }) => {
      const script = new URL("./discover_script.ts", import.meta.url).pathname;
      const run = (readable: string, extra: string[] = []) =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", "--quiet", `--allow-read=${readable}`, script, home, project, ...extra],
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
      const granted = await run(`${home},${project}`);
      assert.equal(
        new TextDecoder().decode(granted.stdout).trim(),
        JSON.stringify([join(home, "extensions/a.ts"), join(project, ".panto/extensions/b.ts")]),
      );
      const denied = await run(home);
      const projectDir = join(project, ".panto/extensions");
      assert.equal(
        new TextDecoder().decode(denied.stdout).trim(),
        `CliError: panto may not read the extensions directory ${projectDir}: run it with --allow-read=${projectDir} (add it to the panto task's --allow-read list), or pass --no-extensions`,
      );
      const deniedExtra = await run(`${home},${projectDir}`, ["tool.ts"]);
      assert.match(
        new TextDecoder().decode(deniedExtra.stdout),
        new RegExp(
          `^CliError: panto may not read the extension ${
            join(project, "tool.ts")
          }: .*, or drop -e tool\\.ts`,
        ),
      );
    },
  );
});

Deno.test({
  name: "discoverExtensions: a directory the file system refuses is reported, not thrown raw",
  ignore: Deno.uid() === 0,
  fn: async () => {
    await withLayout(["home/extensions/a.ts"], async ({ home, project }) => {
      const dir = join(home, "extensions");
      await Deno.chmod(dir, 0o000);
      try {
        await assert.rejects(
          discoverExtensions({ pantoHome: home, cwd: project, extra: [], includeDefaults: true }),
          (error) =>
            error instanceof CliError &&
            error.message.includes(`Cannot read the extensions directory ${dir}`),
        );
      } finally {
        await Deno.chmod(dir, 0o755);
      }
    });
  },
});
if (Deno.uid() === 0) {
  console.log(
    "skipped: the file-system permission test needs a non-root user (root reads any directory)",
  );
}
