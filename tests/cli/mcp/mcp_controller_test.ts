/**
 * MCP servers in the session controller: their tools reach the model, a
 * broken one is reported once to the view, `--mcp-config` adds servers, and
 * a project's servers need the project to be trusted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ChatArgs, parseArgs } from "../../../cli/setup/args.ts";
import type { ControllerEvent } from "../../../cli/controller/controller_events.ts";
import { SessionController } from "../../../cli/controller/session_controller.ts";
import { UsageError } from "../../../cli/shared/errors.ts";
import { formatMcpStatus } from "../../../cli/mcp/format_mcp_status.ts";
import { handleCommand } from "../../../cli/rpc/rpc_handlers.ts";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { STDIO_SERVER_COMMAND } from "../../support/mcp_test_server.ts";

const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

function server(env: Record<string, string> = {}) {
  return { ...STDIO_SERVER_COMMAND, env: { DENO_DIR, ...env } };
}

interface Fixture {
  llm: FakeLlmServer;
  home: string;
  project: string;
}

async function withHome(
  mcpServers: Record<string, unknown>,
  body: (fixture: Fixture) => Promise<void>,
): Promise<void> {
  const llm = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-mcp-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-mcp-project-" });
  try {
    await writeFakeConfig(home, llm, { retry: { maxRetries: 0 }, mcpServers });
    await body({ llm, home, project });
  } finally {
    await llm.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
}

async function open(fixture: Fixture, argv: readonly string[] = []) {
  const controller = await SessionController.open(parseArgs(argv) as ChatArgs, {
    cwd: fixture.project,
    pantoHome: fixture.home,
  });
  const events: ControllerEvent[] = [];
  controller.subscribe((event) => events.push(event));
  return { controller, events };
}

/** The tool results the model was sent in request `index`. */
function toolResults(llm: FakeLlmServer, index: number): string {
  const body = llm.requests[index]?.body as { messages: { role: string }[] } | undefined;
  assert.ok(body, `request ${index} was made`);
  return JSON.stringify(body.messages.filter((m) => m.role === "tool"));
}

function toolNames(llm: FakeLlmServer, index: number): string[] {
  const body = llm.requests[index]?.body as { tools?: { function: { name: string } }[] };
  return (body.tools ?? []).map((t) => t.function.name);
}

Deno.test("a configured server's tools are offered to the model and called", async () => {
  await withHome({ local: server() }, async (fixture) => {
    const { controller, events } = await open(fixture);
    try {
      fixture.llm.enqueue(
        {
          kind: "turn",
          blocks: [{ type: "tool_use", id: "c1", name: "local__echo", input: { text: "hey" } }],
        },
        { kind: "turn", blocks: [{ type: "text", text: "Done." }] },
      );
      const outcome = await controller.prompt("use the server");
      assert.equal(outcome.status, "done");
      assert.ok(toolNames(fixture.llm, 0).includes("local__echo"), "offered");
      assert.ok(toolResults(fixture.llm, 1).includes("echo: hey"), toolResults(fixture.llm, 1));
      const status = formatMcpStatus(await controller.mcpStatus());
      assert.match(
        status,
        /^local \(stdio, from .*config\.json\): connected\n {2}tools: local__echo/,
      );
      assert.deepEqual(events.filter((e) => e.type === "notice"), []);
    } finally {
      await controller.close();
    }
  });
});

Deno.test("a broken server is reported to the view once, with its stderr, and runs go on", async () => {
  await withHome({ broken: server({ MCP_TEST_BROKEN: "1" }) }, async (fixture) => {
    const { controller, events } = await open(fixture);
    try {
      fixture.llm.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Fine." }] });
      assert.equal((await controller.prompt("hi")).status, "done");
      const notices = events.filter((e) => e.type === "notice");
      assert.equal(notices.length, 1);
      const notice = notices[0] as { text: string; level: string };
      assert.equal(notice.level, "warning");
      assert.match(notice.text, /MCP server "broken" could not be started/);
      assert.match(notice.text, /boom: the test server is broken on purpose/);
      assert.match(formatMcpStatus(await controller.mcpStatus()), /broken \(stdio.*\): failed/);
      const rpc = await handleCommand(controller, { type: "get_mcp_servers" }) as {
        servers: { name: string; state: string; error?: string }[];
      };
      assert.deepEqual(rpc.servers.map((s) => [s.name, s.state]), [["broken", "failed"]]);
      assert.match(rpc.servers[0]?.error ?? "", /broken on purpose/);
    } finally {
      await controller.close();
    }
  });
});

Deno.test("--mcp-config adds the servers of a file; a bad file is a usage error", async () => {
  await withHome({}, async (fixture) => {
    const file = join(fixture.project, "servers.json");
    await Deno.writeTextFile(file, JSON.stringify({ mcpServers: { extra: server() } }));
    const { controller } = await open(fixture, ["--mcp-config", file]);
    try {
      const [status] = await controller.mcpStatus();
      assert.equal(status?.name, "extra");
      assert.equal(status?.source, file);
    } finally {
      await controller.close();
    }
    await Deno.writeTextFile(file, JSON.stringify({ mcpServers: { bad: { args: [] } } }));
    await assert.rejects(open(fixture, ["--mcp-config", file]), UsageError);
    await assert.rejects(
      open(fixture, ["--mcp-config", join(fixture.project, "missing.json")]),
      (error: Error) => error instanceof UsageError && /no such file/.test(error.message),
    );
  });
});

Deno.test("a project's MCP server needs the project to be trusted", async () => {
  await withHome({}, async (fixture) => {
    await Deno.mkdir(join(fixture.project, ".panto"));
    await Deno.writeTextFile(
      join(fixture.project, ".panto", "config.json"),
      JSON.stringify({ mcpServers: { sneaky: { command: "/bin/echo", args: ["pwned"] } } }),
    );
    await assert.rejects(
      open(fixture),
      (error: Error) =>
        error instanceof UsageError && error.message.includes("mcpServers.sneaky") &&
        error.message.includes("runs /bin/echo pwned"),
    );
    const { controller } = await SessionController.open(parseArgs([]) as ChatArgs, {
      cwd: fixture.project,
      pantoHome: fixture.home,
      untrustedProject: "ignore",
    }).then((controller) => ({ controller }));
    try {
      assert.deepEqual(await controller.mcpStatus(), []);
      assert.match(controller.notices.join("\n"), /mcpServers\.sneaky/);
    } finally {
      await controller.close();
    }
  });
});
