import assert from "node:assert/strict";
import { join } from "node:path";
import { configNeeds, flagNeeds } from "../../../cli/launcher/config_needs.ts";
import { grantsFor } from "../../../cli/launcher/launch.ts";
import { permissionFlags } from "../../../cli/launcher/permission_flags.ts";
import { agentsFilesAbove, projectRoot } from "../../../cli/launcher/project_root.ts";

Deno.test("the project is the git root above the working directory, else the directory", () => {
  const git = new Set(["/work/app/.git"]);
  assert.equal(projectRoot("/work/app/src/x", "/home/ada", (p) => git.has(p)), "/work/app");
  assert.equal(projectRoot("/srv/tmp", "/home/ada", (p) => git.has(p)), "/srv/tmp");
});

Deno.test("a repository at or above the home directory (dotfiles) is not taken as the project", () => {
  const git = new Set(["/home/ada/.git", "/.git"]);
  assert.equal(projectRoot("/home/ada/code/x", "/home/ada", (p) => git.has(p)), "/home/ada/code/x");
  assert.equal(projectRoot("/srv/x", "/home/ada", (p) => git.has(p)), "/srv/x");
});

Deno.test("only the AGENTS.md files that exist above the project are granted, root first", () => {
  const files = new Set(["/AGENTS.md", "/work/AGENTS.md", "/work/app/AGENTS.md"]);
  assert.deepEqual(agentsFilesAbove("/work/app", (p) => files.has(p)), [
    "/AGENTS.md",
    "/work/AGENTS.md",
  ]);
});

Deno.test("config needs: key variables, hidden variables and allowed paths; names that are not names and bad JSON give none", () => {
  const context = { cwd: "/work", home: "/home/ada" };
  const needs = configNeeds(
    JSON.stringify({
      providers: { a: { apiKeyEnv: "A_KEY" }, b: { apiKeyEnv: "sk-not a name" }, c: {} },
      tools: { allowedPaths: ["~/notes", "../shared", 7], hideEnv: ["DB_PASSWORD", "not a name"] },
    }),
    context,
  );
  assert.deepEqual(needs.variables, ["A_KEY", "DB_PASSWORD"]);
  assert.deepEqual(needs.readWrite, ["/home/ada/notes", "/shared"]);
  assert.deepEqual(configNeeds("{ not json", context), {
    variables: [],
    readWrite: [],
    readOnly: [],
  });
});

Deno.test("flag needs: both spellings, each named file exactly, URLs ignored, nothing after --", () => {
  const needs = flagNeeds(
    [
      "--api-key-env",
      "K1",
      "--store-url=db/s.db",
      "--store-url",
      "postgres://h/db",
      "-e",
      "ext.ts",
      "--mcp-config",
      "~/.cursor/mcp.json",
      "--",
      "--api-key-env",
      "K2",
    ],
    { cwd: "/w", home: "/home/ada" },
  );
  assert.deepEqual(needs, {
    variables: ["K1"],
    readWrite: [
      "/w/db/s.db",
      "/w/db/s.db-wal",
      "/w/db/s.db-shm",
      "/w/db/s.db-journal",
      "/w/db/s.db.locks",
    ],
    readOnly: ["/w/ext.ts", "/home/ada/.cursor/mcp.json"],
  });
});

Deno.test("flag needs: a SQLite database in a directory that does not exist yet grants that directory, to create it", () => {
  const needs = flagNeeds(["--store-url", "/data/new/s.db"], {
    cwd: "/w",
    home: undefined,
    exists: (path) => path !== "/data/new",
  });
  assert.deepEqual(needs.readWrite, ["/data/new"]);
});

Deno.test("permission flags: each list once, paths with commas (not grantable) left out, no prompt", () => {
  const flags = permissionFlags({
    readWrite: ["/a", "/a", "/c,d"],
    readOnly: ["/r"],
    variables: ["HOME", "HOME", "K"],
  });
  assert.deepEqual(flags.slice(0, 4), [
    "--no-prompt",
    "--allow-read=/a,/r",
    "--allow-write=/a",
    "--allow-env=HOME,K",
  ]);
  assert.ok(flags.includes("--ignore-env"));
  const none = permissionFlags({ readWrite: ["/x,y"], readOnly: [], variables: ["HOME"] });
  assert.ok(!none.some((flag) => flag.startsWith("--allow-write")), "an empty list allows all");
});

Deno.test("grantsFor: the project, PANTO_HOME where it points, and the config's key variables", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-grants-" });
  try {
    const project = join(root, "p");
    const pantoHome = join(root, "ph");
    await Deno.mkdir(join(project, ".git"), { recursive: true });
    await Deno.mkdir(join(project, "sub"));
    await Deno.mkdir(pantoHome);
    await Deno.writeTextFile(join(root, "AGENTS.md"), "x");
    await Deno.writeTextFile(
      join(pantoHome, "config.json"),
      JSON.stringify({ providers: { t: { apiKeyEnv: "TOGETHER_API_KEY" } } }),
    );
    const env = new Map([["HOME", join(root, "home")], ["PANTO_HOME", pantoHome]]);
    const grants = await grantsFor({ cwd: join(project, "sub"), env: (n) => env.get(n), args: [] });
    assert.deepEqual(grants.readWrite, [project, pantoHome]);
    assert.ok(grants.readOnly.includes(join(root, "AGENTS.md")));
    assert.ok(grants.variables.includes("TOGETHER_API_KEY"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("grants come from a config written as JSONC (comments, trailing commas) too", async () => {
  const pantoHome = await Deno.makeTempDir({ prefix: "panto-grants-jsonc-" });
  try {
    await Deno.writeTextFile(
      join(pantoHome, "config.json"),
      '// mine\n{\n  "providers": {\n    "t": { "apiKeyEnv": "MY_JSONC_KEY" }, /* mine */\n  },\n}\n',
    );
    const env = new Map([["HOME", pantoHome], ["PANTO_HOME", pantoHome]]);
    const grants = await grantsFor({ cwd: pantoHome, env: (n) => env.get(n), args: [] });
    assert.ok(grants.variables.includes("MY_JSONC_KEY"));
  } finally {
    await Deno.remove(pantoHome, { recursive: true });
  }
});

Deno.test("CLAUDE.md files above the project are granted beside AGENTS.md, each directory's AGENTS.md first", () => {
  const files = new Set(["/CLAUDE.md", "/work/AGENTS.md", "/work/CLAUDE.md"]);
  assert.deepEqual(agentsFilesAbove("/work/app", (p) => files.has(p)), [
    "/CLAUDE.md",
    "/work/AGENTS.md",
    "/work/CLAUDE.md",
  ]);
});

Deno.test("grantsFor: the other agents' skill and prompt directories in the home that exist, read only", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto-grants-" }));
  try {
    const home = join(root, "home");
    const project = join(root, "p");
    await Deno.mkdir(project);
    await Deno.mkdir(join(home, ".claude", "skills"), { recursive: true });
    await Deno.mkdir(join(home, ".pi", "agent", "prompts"), { recursive: true });
    await Deno.writeTextFile(join(home, ".claude", "settings.json"), "{}");
    const env = new Map([["HOME", home]]);
    const grants = await grantsFor({ cwd: project, env: (n) => env.get(n), args: [] });
    assert.ok(grants.readOnly.includes(join(home, ".claude", "skills")));
    assert.ok(grants.readOnly.includes(join(home, ".pi", "agent", "prompts")));
    assert.ok(!grants.readOnly.includes(join(home, ".agents", "skills")), "missing: not granted");
    const everything = [...grants.readOnly, ...grants.readWrite];
    assert.ok(!everything.some((path) => path === join(home, ".claude") || path === home));
    assert.ok(!grants.readWrite.some((path) => path.startsWith(join(home, ".claude"))));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
