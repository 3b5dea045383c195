import assert from "node:assert/strict";
import { join } from "node:path";
import { Agent, type Tool } from "@panto/lib";
import { McpServers } from "../../../lib/mcp/mcp_servers.ts";
import type { McpServerSettings } from "../../../cli/config/panto_config.ts";
import {
  PIXEL_PNG,
  startHttpMcpServer,
  STDIO_SERVER_COMMAND,
} from "../../support/mcp_test_server.ts";

const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

function stdio(env: Record<string, string> = {}): McpServerSettings {
  return { ...STDIO_SERVER_COMMAND, env: { DENO_DIR, ...env }, source: "test config" };
}

/** An agent that never runs: only its tool registry is used. */
function idleAgent(): Agent {
  return new Agent({
    config: {
      provider: {
        api: "anthropic-messages",
        baseUrl: "http://127.0.0.1:9",
        model: "m",
        apiKey: "k",
        reasoning: "off",
      },
    },
  });
}

function start(
  settings: Record<string, McpServerSettings>,
  readyWaitMs = 30_000,
): { servers: McpServers; reports: string[]; toolsChanged: Promise<void> } {
  const reports: string[] = [];
  const { promise: toolsChanged, resolve } = Promise.withResolvers<void>();
  const servers = McpServers.start(settings, {
    cwd: Deno.cwd(),
    report: (message) => reports.push(message),
    onToolsChanged: resolve,
  }, readyWaitMs);
  return { servers, reports, toolsChanged };
}

function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in:\n${text}`);
}

function tool(agent: Agent, name: string): Tool {
  const found = agent.tools.find((t) => t.decl.name === name);
  if (!found) throw new Error(`${name} is not registered: ${agent.tools.map((t) => t.decl.name)}`);
  return found;
}

async function call(agent: Agent, name: string, args: Record<string, unknown> = {}) {
  const output = await tool(agent, name).execute(args, {
    signal: new AbortController().signal,
    callId: "c1",
  });
  return Array.isArray(output) ? { parts: output, isError: false } : output;
}

function textOf(result: { parts: { type: string; text?: string }[] }): string {
  return result.parts.map((p) => p.text ?? `[${p.type}]`).join("\n");
}

async function until(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("a stdio server's tools are namespaced, called, and map images and resources", async () => {
  const { servers, reports } = start({ local: stdio() });
  try {
    const agent = idleAgent();
    await servers.sync(agent);
    const names = agent.tools.map((t) => t.decl.name);
    for (const expected of ["local__echo", "local__picture", "local__document", "local__die"]) {
      assert.ok(names.includes(expected), `${expected} missing from ${names}`);
    }
    assert.deepEqual(textOf(await call(agent, "local__echo", { text: "hi" })), "echo: hi");
    const picture = await call(agent, "local__picture");
    assert.deepEqual(picture.parts[1], { type: "image", mediaType: "image/png", data: PIXEL_PNG });
    const document = textOf(await call(agent, "local__document"));
    includes(document, "Resource <file:///notes.md> (text/markdown):\n# Notes");
    includes(document, "Resource link: big <file:///big.bin>");
    const failed = await call(agent, "local__fail");
    assert.deepEqual(failed.isError, true);
    assert.deepEqual(textOf(failed), "it went wrong");
    assert.deepEqual(reports, []);
    const [status] = await servers.describe();
    assert.deepEqual(status?.state, "connected");
    assert.ok(status?.tools.includes("local__echo"));
  } finally {
    await servers.close();
  }
});

Deno.test("a stdio server inherits panto's environment (the keys are withheld at start, see tests/cli/launcher/child_env_test.ts) plus its configured variables", async () => {
  Deno.env.set("PANTO_MCP_VISIBLE", "visible");
  const { servers } = start({ local: stdio({ GIVEN: "from config" }) });
  try {
    const agent = idleAgent();
    await servers.sync(agent);
    const env = async (name: string) => textOf(await call(agent, "local__env", { name }));
    assert.deepEqual(await env("PANTO_MCP_VISIBLE"), "visible");
    assert.deepEqual(await env("GIVEN"), "from config");
    assert.ok((await env("PATH")) !== "(unset)", "PATH is passed on");
  } finally {
    Deno.env.delete("PANTO_MCP_VISIBLE");
    await servers.close();
  }
});

Deno.test("a Streamable HTTP server gets its headers and its tools work", async () => {
  const http = await startHttpMcpServer();
  const { servers, reports } = start({
    remote: { url: http.url, headers: { "X-Token": "t0ken" }, source: "test config" },
  });
  try {
    const agent = idleAgent();
    await servers.sync(agent);
    assert.deepEqual(
      textOf(await call(agent, "remote__echo", { text: "over http" })),
      "echo: over http",
    );
    assert.deepEqual(http.lastHeaders?.get("x-token"), "t0ken");
    assert.deepEqual(reports, []);
  } finally {
    await servers.close();
    await http.close();
  }
});

Deno.test("a changed tool list is picked up at the next sync", async () => {
  const http = await startHttpMcpServer();
  const { servers, toolsChanged } = start({ remote: { url: http.url, source: "test config" } });
  try {
    const agent = idleAgent();
    await servers.sync(agent);
    assert.ok(!agent.tools.some((t) => t.decl.name === "remote__extra"));
    assert.deepEqual(textOf(await call(agent, "remote__grow")), "grown");
    await toolsChanged;
    await servers.sync(agent);
    assert.deepEqual(textOf(await call(agent, "remote__extra")), "extra");
    assert.deepEqual(agent.tools.filter((t) => t.decl.name === "remote__echo").length, 1);
  } finally {
    await servers.close();
    await http.close();
  }
});

Deno.test("a broken server is reported once with its stderr tail; the others keep working", async () => {
  const { servers, reports } = start({ broken: stdio({ MCP_TEST_BROKEN: "1" }), good: stdio() });
  try {
    const agent = idleAgent();
    await servers.sync(agent);
    assert.deepEqual(
      textOf(await call(agent, "good__echo", { text: "still here" })),
      "echo: still here",
    );
    assert.deepEqual(reports.length, 1);
    includes(reports[0]!, 'MCP server "broken" could not be started');
    includes(reports[0]!, "boom: the test server is broken on purpose");
    const broken = servers.status()[0]!;
    assert.deepEqual(broken.state, "failed");
    assert.ok(!agent.tools.some((t) => t.decl.name.startsWith("broken__")));
  } finally {
    await servers.close();
  }
});

Deno.test("a server without tools is connected, with nothing to offer", async () => {
  const { servers, reports } = start({ docs: stdio({ MCP_TEST_NO_TOOLS: "1" }) });
  try {
    const agent = idleAgent();
    await servers.sync(agent);
    const [status] = await servers.describe();
    assert.deepEqual([status?.state, status?.tools], ["connected", []]);
    assert.deepEqual(agent.tools, []);
    assert.deepEqual(reports, []);
  } finally {
    await servers.close();
  }
});

Deno.test("a missing command fails that server, naming it", async () => {
  const { servers, reports } = start({
    missing: { command: "/nonexistent/mcp-server", source: "test config" },
  });
  try {
    await servers.sync(idleAgent());
    assert.deepEqual(servers.status()[0]?.state, "failed");
    assert.deepEqual(reports.length, 1);
    assert.match(reports[0]!, /^MCP server "missing" could not be started: /);
  } finally {
    await servers.close();
  }
});

Deno.test("a slow server does not hold up start or a run; its tools come at a later run", async () => {
  // The server cannot be ready before this file exists: every wait below ends on panto's side.
  const dir = await Deno.makeTempDir({ prefix: "panto_mcp_slow_" });
  const startFile = join(dir, "start");
  const { servers, reports } = start({ slow: stdio({ MCP_TEST_START_FILE: startFile }) }, 200);
  try {
    assert.deepEqual(servers.status()[0]?.state, "connecting", "start returns at once");
    const agent = idleAgent();
    await servers.sync(agent);
    assert.deepEqual(agent.tools.length, 0, "a run waits at most the ready wait");
    await servers.sync(agent);
    assert.deepEqual(agent.tools.length, 0, "later runs do not wait");
    assert.deepEqual(servers.status()[0]?.state, "connecting");
    await Deno.writeTextFile(startFile, "");
    await until(() => servers.status()[0]?.state === "connected", "the slow server", 60_000);
    await servers.sync(agent);
    assert.deepEqual(textOf(await call(agent, "slow__echo", { text: "late" })), "echo: late");
    assert.deepEqual(reports, []);
  } finally {
    await servers.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a server that dies mid-session is restarted once; its tools fail cleanly meanwhile", async () => {
  const { servers, reports } = start({ local: stdio() });
  try {
    const agent = idleAgent();
    await servers.sync(agent);
    const died = await call(agent, "local__die").catch((error: Error) => error);
    assert.ok(died instanceof Error, "the call that killed it fails");
    await until(() => reports.length === 1, "the report of the death");
    includes(reports[0]!, 'MCP server "local" stopped');
    includes(reports[0]!, "restarting it");
    includes(reports[0]!, "dying on request");
    // A new deno process takes far longer to answer than this call.
    assert.deepEqual(servers.status()[0]?.state, "restarting");
    const meanwhile = await call(agent, "local__echo", { text: "x" });
    assert.deepEqual(meanwhile.isError, true);
    includes(textOf(meanwhile), 'MCP server "local" is restarting');
    await until(() => servers.status()[0]?.state === "connected", "the restart");
    await servers.sync(agent);
    assert.deepEqual(textOf(await call(agent, "local__echo", { text: "back" })), "echo: back");
    await call(agent, "local__die").catch(() => {});
    await until(() => servers.status()[0]?.state === "failed", "the second death");
    assert.deepEqual(reports.length, 2);
    includes(reports[1]!, "stopped again");
    const after = await call(agent, "local__echo", { text: "x" });
    assert.deepEqual(after.isError, true);
    includes(textOf(after), 'MCP server "local" is failed');
  } finally {
    await servers.close();
  }
});

Deno.test("an HTTP server that goes away: the call fails, one reconnect is tried, then it is failed", async () => {
  const http = await startHttpMcpServer();
  const { servers, reports } = start({ remote: { url: http.url, source: "test config" } });
  try {
    const agent = idleAgent();
    await servers.sync(agent);
    await http.close();
    const lost = await call(agent, "remote__echo", { text: "x" }).catch((error: Error) => error);
    assert.ok(lost instanceof Error, "the call fails");
    await until(() => servers.status()[0]?.state === "failed", "the failed reconnect");
    assert.equal(reports.length, 2, reports.join("\n---\n"));
    includes(reports[0]!, 'MCP server "remote" stopped');
    includes(reports[1]!, 'MCP server "remote" could not be started');
    const after = await call(agent, "remote__echo", { text: "x" });
    assert.equal(after.isError, true);
  } finally {
    await servers.close();
  }
});
