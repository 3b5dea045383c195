/** `/reload`'s one-line summary of what changed, from two snapshots. */
import assert from "node:assert/strict";
import {
  configFingerprint,
  type ReloadSnapshot,
  restartNotices,
  summarizeReload,
} from "../../../cli/controller/reload_summary.ts";
import type { PantoConfig } from "../../../cli/config/panto_config.ts";

const BEFORE: ReloadSnapshot = {
  config: { defaultModel: '"fast"', keybindings: "{}" },
  theme: "dark",
  skills: ["review", "deploy"],
  templates: ["fix"],
  contextFiles: { "AGENTS.md": "old" },
  systemPrompt: "prompt",
  extensions: [],
};

Deno.test("nothing changed says so", () => {
  assert.equal(summarizeReload(BEFORE, structuredClone(BEFORE)), "Nothing changed");
});

Deno.test("every kind of change is listed in one line, in a fixed order", () => {
  const after: ReloadSnapshot = {
    config: { defaultModel: '"smart"', keybindings: '{"app.exit":["ctrl+q"]}' },
    theme: "light",
    skills: ["review", "a", "b"],
    templates: ["fix"],
    contextFiles: { "AGENTS.md": "new" },
    systemPrompt: "prompt 2",
    extensions: [],
  };
  assert.equal(
    summarizeReload(BEFORE, after),
    "Reloaded: theme dark → light; 2 skills added (a, b), 1 removed (deploy); AGENTS.md changed; " +
      "config: defaultModel, keybindings",
  );
});

Deno.test("removed skills alone, templates, added and removed context files", () => {
  const after: ReloadSnapshot = {
    ...BEFORE,
    skills: [],
    templates: ["fix", "plan"],
    contextFiles: { "CLAUDE.md": "x" },
    systemPrompt: "other",
  };
  assert.equal(
    summarizeReload(BEFORE, after),
    "Reloaded: 2 skills removed (review, deploy); 1 prompt template added (plan); " +
      "AGENTS.md removed; CLAUDE.md added",
  );
});

Deno.test("extensions: reloaded, added and removed by name", () => {
  const before = { ...BEFORE, extensions: ["x", "old"] };
  const after = { ...BEFORE, extensions: ["x", "y"] };
  assert.equal(
    summarizeReload(before, after),
    "Reloaded: extension x reloaded; extension y added; extension old removed",
  );
});

Deno.test("a prompt change nothing else explains (SYSTEM.md) is named", () => {
  assert.equal(
    summarizeReload(BEFORE, { ...BEFORE, systemPrompt: "new SYSTEM.md" }),
    "Reloaded: system prompt changed",
  );
});

Deno.test("the config's fingerprint leaves out sources, notices and the theme", () => {
  const print = configFingerprint({
    defaultModel: "fast",
    defaultModelSource: "~/.panto/config.json",
    keybindings: {},
    keybindingSources: {},
    theme: "light",
    themeSource: "~/.panto/config.json",
    notices: ["n"],
    files: ["~/.panto/config.json"],
    parallelTools: true,
    idleTimeoutMs: undefined,
  } as unknown as PantoConfig);
  assert.deepEqual(Object.keys(print).sort(), ["defaultModel", "keybindings", "parallelTools"]);
});

Deno.test("settings that need a restart are named, others not", () => {
  const config = {
    mcpServers: { a: { command: "x" } },
    tools: { allowedPaths: ["/a"] },
    providers: { p: { apiKeyEnv: "P_KEY" } },
  } as unknown as PantoConfig;
  assert.deepEqual(restartNotices(config, structuredClone(config)), []);
  const after = structuredClone(config) as unknown as {
    tools: { allowedPaths: string[] };
    providers: Record<string, { apiKeyEnv: string }>;
  };
  after.tools.allowedPaths.push("/b");
  after.providers.p!.apiKeyEnv = "OTHER_KEY";
  const notices = restartNotices(config, after as unknown as PantoConfig);
  assert.equal(notices.length, 2);
  assert.match(notices[0]!, /^tools\.allowedPaths changed: restart panto/);
  assert.match(notices[1]!, /^providers' apiKeyEnv changed/);
});
