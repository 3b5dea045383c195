import assert from "node:assert/strict";
import { join } from "node:path";
import type { Message } from "@panto/lib";
import { type Component, Text } from "@panto/tui";
import { ToolUse } from "../../../cli/chat/components/tool_use.ts";
import type { UiEvents } from "../../../cli/chat/ui_events.ts";
import type { PantoApi } from "../../../cli/extensions/extension_api.ts";
import { explode } from "./fixtures/full.ts";
import { callTool, fixturePath, makeHarness, moduleOf } from "./host_harness.ts";

const CTRL_K = "\x0b";
const CTRL_G = "\x07";

function createTool(harness: { uiEvents: UiEvents }): Component {
  const data = { callId: "c1", name: "read", args: '{"path":"a.txt"}' };
  return harness.uiEvents.create("tool", data, () => new ToolUse(data));
}

function staticComponent(lines: string[]): Component {
  return { render: () => lines, firstLineChanged: () => null, invalidate: () => {} };
}

Deno.test("ExtensionHost loads a real module: tool, command, keybinding and UI handler work", async () => {
  const harness = makeHarness();
  const path = fixturePath("full.ts");
  await harness.host.load([path]);

  assert.deepEqual(harness.reports, []);
  assert.deepEqual(harness.host.loaded, [{ name: "full", path, enabled: true }]);
  const echo = harness.tools.get("fixture_echo");
  assert.ok(echo, "the tool reached the agent");
  assert.deepEqual(await callTool(echo, { text: "hi" }), { text: "echo: hi", isError: false });

  assert.deepEqual(harness.host.commands().get("greet"), {
    description: "Greets",
    extension: "full",
  });
  assert.equal(await harness.host.runCommand("greet", "ada"), true);
  assert.deepEqual(harness.notifications, [{
    text: "hello ada from interactive 9.9.9",
    level: undefined,
  }]);

  assert.deepEqual(harness.host.keybindings(), [
    { keys: ["ctrl+k"], description: "Send a prompt", extension: "full" },
  ]);
  assert.equal(harness.host.handleKey("x"), false);
  assert.equal(harness.host.handleKey(CTRL_K), true);
  assert.deepEqual(harness.sentMessages, ["sent by ctrl+k"]);

  const lines = createTool(harness).render(60);
  assert.ok(
    lines.length > 0 && lines.every((line) => line.startsWith("[full] ")),
    lines.join("\n"),
  );
});

Deno.test("ExtensionHost reports a default export that is not a function and loads the next one", async () => {
  const harness = makeHarness();
  const bad = fixturePath("not_a_function.ts");
  await harness.host.load([bad, fixturePath("full.ts")]);
  assert.deepEqual(harness.reports, [
    `${bad}: the default export must be a function (panto) => {…}, got number`,
  ]);
  assert.deepEqual(harness.host.loaded.map((e) => [e.name, e.enabled]), [
    ["not_a_function", false],
    ["full", true],
  ]);
  assert.equal(harness.host.loaded[0]?.error, harness.reports[0]);
});

Deno.test("ExtensionHost reports a module that cannot be imported and keeps going", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto_ext_" });
  try {
    const broken = join(dir, "broken.ts");
    await Deno.writeTextFile(broken, "export default (panto => {\n");
    const harness = makeHarness();
    await harness.host.load([broken, fixturePath("full.ts")]);
    assert.equal(harness.reports.length, 1);
    assert.match(
      harness.reports[0]!,
      /^Extension "broken" \(.*broken\.ts\) could not be imported: /,
    );
    assert.deepEqual(harness.host.loaded.map((e) => e.enabled), [false, true]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const LOAD_FAILURES: readonly (readonly [fixture: string, message: string])[] = [
  ["throws_sync.ts", "sync load failure"],
  ["throws_async.ts", "async load failure"],
];

for (const [fixture, message] of LOAD_FAILURES) {
  Deno.test(`ExtensionHost rolls back everything ${fixture} registered before it threw`, async () => {
    const harness = makeHarness();
    const path = fixturePath(fixture);
    await harness.host.load([path]);
    assert.equal(harness.reports.length, 1);
    const report = harness.reports[0]!;
    const name = fixture.replace(".ts", "");
    assert.ok(
      report.startsWith(`Extension "${name}" (${path}) threw while loading: ${message}`),
      report,
    );
    assert.match(report, new RegExp(`\\(at .*${fixture}:\\d+:\\d+\\)`), "names where it threw");
    assert.match(report, /nothing it registered was kept/);

    assert.deepEqual([...harness.tools.keys()], [], "no tool reached the agent");
    assert.equal(harness.host.commands().size, 0);
    assert.deepEqual(harness.host.keybindings(), []);
    assert.equal(harness.host.handleKey(CTRL_G), false);
    assert.ok(createTool(harness) instanceof ToolUse, "its tool handler is gone");
    const user = harness.uiEvents.create("user_message", { text: "hi" }, () => new Text("hi"));
    assert.ok(user instanceof Text, "its user_message handler is gone");
    assert.equal(harness.host.loaded[0]?.enabled, false);
  });
}

Deno.test("ExtensionHost refuses commands that clash with built-ins or another extension", async () => {
  const harness = makeHarness({
    modules: {
      "/ext/first.ts": moduleOf((panto) => {
        panto.registerCommand("model", { description: "mine", run: () => {} });
        panto.registerCommand("shared", { description: "first", run: () => {} });
      }),
      "/ext/second.ts": moduleOf((panto) => {
        panto.registerCommand("shared", { description: "second", run: () => {} });
        panto.registerCommand("own", { description: "second's own", run: () => {} });
      }),
    },
  });
  await harness.host.load(["/ext/first.ts", "/ext/second.ts"]);
  assert.deepEqual(harness.reports, [
    'Extension "first": command /model was not registered: it is a built-in command; pick another name',
    'Extension "second": command /shared was not registered: extension "first" already registered it; pick another name',
  ]);
  assert.deepEqual([...harness.host.commands()], [
    ["shared", { description: "first", extension: "first" }],
    ["own", { description: "second's own", extension: "second" }],
  ]);
  assert.equal(await harness.host.runCommand("model", ""), false, "built-ins are the app's to run");
  assert.ok(harness.host.loaded.every((e) => e.enabled), "a clash does not disable the extension");
});

Deno.test("ExtensionHost rejects malformed registrations with a TypeError the extension sees", async () => {
  const errors: string[] = [];
  const attempt = (action: () => void) => {
    try {
      action();
      errors.push("no error");
    } catch (error) {
      assert.ok(error instanceof TypeError);
      errors.push(error.message);
    }
  };
  const harness = makeHarness({
    modules: {
      "/ext/sloppy.ts": moduleOf((panto) => {
        attempt(() => panto.registerCommand("/wc", { description: "", run: () => {} }));
        attempt(() => panto.registerCommand("ok", { description: "no run" } as never));
        attempt(() => panto.registerKeybinding("hyper+x", () => {}));
        attempt(() => panto.registerTool({ decl: {} } as never));
        attempt(() => panto.emit("tool", {}));
      }),
    },
  });
  await harness.host.load(["/ext/sloppy.ts"]);
  assert.equal(errors.length, 5);
  assert.match(errors[0]!, /Command name "\/wc" is invalid: .*without the leading "\/"/);
  assert.match(
    errors[1]!,
    /Command \/ok must be an object \{ description: string, run\(args, ctx\) \}/,
  );
  assert.match(errors[2]!, /Unknown modifier "hyper" in key spec "hyper\+x"/);
  assert.match(errors[3]!, /registerTool needs \{ decl: \{ name, description, inputSchema \}/);
  assert.match(
    errors[4]!,
    /UI event "tool" is fired by panto itself; emit a name of your own \(e\.g\. "sloppy:tool"\)/,
  );
  assert.deepEqual(harness.reports, [], "caught errors are the extension's business");
});

Deno.test("ExtensionHost skips a tool whose name is taken, keeping the extension", async () => {
  const harness = makeHarness({
    builtinTools: ["read"],
    modules: {
      "/ext/tools.ts": moduleOf((panto) => {
        for (const name of ["read", "extra"]) {
          panto.registerTool({
            decl: { name, description: name, inputSchema: {} },
            execute: () => [],
          });
        }
      }),
    },
  });
  await harness.host.load(["/ext/tools.ts"]);
  assert.equal(harness.reports.length, 1);
  assert.match(
    harness.reports[0]!,
    /^Extension "tools": tool "read" was not registered: Tool name "read" is already registered/,
  );
  assert.ok(harness.tools.has("extra"));
  assert.equal(harness.host.loaded[0]?.enabled, true);
});

Deno.test("ExtensionHost.runCommand returns false for an unknown command", async () => {
  const harness = makeHarness();
  assert.equal(await harness.host.runCommand("nope", ""), false);
});

Deno.test("a throwing command disables its extension: commands, keys and UI handlers go, tools answer an error", async () => {
  const harness = makeHarness();
  const path = fixturePath("full.ts");
  await harness.host.load([path]);
  assert.equal(await harness.host.runCommand("boom", ""), true);

  assert.equal(harness.reports.length, 1);
  const report = harness.reports[0]!;
  assert.ok(
    report.startsWith(
      'Extension "full" was disabled: command /boom threw: boom from a command (at ',
    ),
    report,
  );
  assert.match(report, /full\.ts:\d+:\d+\)/);
  const state = harness.host.loaded[0]!;
  assert.equal(state.enabled, false);
  assert.match(state.error!, /^command \/boom threw: boom from a command/);

  assert.equal(harness.host.commands().size, 0);
  assert.equal(await harness.host.runCommand("greet", "x"), false);
  assert.equal(harness.host.handleKey(CTRL_K), false);
  assert.deepEqual(harness.sentMessages, []);
  assert.ok(
    createTool(harness) instanceof ToolUse,
    "the tool event gets the default component again",
  );

  const result = await callTool(harness.tools.get("fixture_echo")!, { text: "hi" });
  assert.deepEqual(result, { text: `extension full is disabled: ${state.error}`, isError: true });
});

Deno.test("keybinding handlers that throw or reject disable their extension", async () => {
  const harness = makeHarness({
    modules: {
      "/ext/sync.ts": moduleOf((panto) => {
        panto.registerKeybinding("ctrl+g", () => {
          throw new Error("sync key failure");
        });
      }),
      "/ext/async.ts": moduleOf((panto) => {
        panto.registerKeybinding(
          ["ctrl+k", "f5"],
          () => Promise.reject(new Error("async key failure")),
        );
      }),
    },
  });
  await harness.host.load(["/ext/sync.ts", "/ext/async.ts"]);
  assert.equal(harness.host.handleKey(CTRL_G), true);
  assert.equal(harness.host.loaded[0]?.enabled, false, "disabled before handleKey returns");
  assert.match(
    harness.reports[0]!,
    /"sync" was disabled: keybinding ctrl\+g threw: sync key failure/,
  );

  assert.equal(harness.host.handleKey(CTRL_K), true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(harness.host.loaded[1]?.enabled, false);
  assert.match(
    harness.reports[1]!,
    /"async" was disabled: keybinding ctrl\+k, f5 threw: async key failure/,
  );
  assert.equal(harness.host.handleKey(CTRL_K), false);
});

Deno.test("a UI handler that throws is discarded, disables its extension, and later handlers still run", async () => {
  const harness = makeHarness({
    modules: {
      "/ext/faulty.ts": moduleOf((panto) => {
        panto.on("tool", (event) => {
          event.setComponent(staticComponent(["faulty"]));
          throw new Error("handler failure");
        });
      }),
      "/ext/later.ts": moduleOf((panto) => {
        panto.on("tool", (event) => {
          const inner = event.getComponent()!;
          event.setComponent({
            ...staticComponent([]),
            render: (w) => ["later:", ...inner.render(w)],
          });
        });
      }),
    },
  });
  await harness.host.load(["/ext/faulty.ts", "/ext/later.ts"]);
  const lines = createTool(harness).render(40);
  assert.equal(lines[0], "later:");
  assert.ok(!lines.includes("faulty"), "the throwing handler's choice was discarded");
  assert.match(lines[1]!, /read/, "the later handler wrapped the default tool component");
  assert.equal(harness.reports.length, 1, "reported once, by the host");
  assert.match(
    harness.reports[0]!,
    /"faulty" was disabled: its "tool" UI handler threw: handler failure/,
  );
  assert.deepEqual(harness.uiErrors, [], "UiEvents' own error path is not involved");
  assert.deepEqual(harness.host.loaded.map((e) => e.enabled), [false, true]);
});

Deno.test("a UI handler returning a promise is reported once; a rejection disables its extension", async () => {
  let reject: (error: Error) => void = () => {};
  let calls = 0;
  const harness = makeHarness({
    modules: {
      "/ext/eager.ts": moduleOf((panto) => {
        panto.on("tool", (event) => {
          calls++;
          return new Promise<void>((_resolve, rejectPromise) => {
            reject = rejectPromise;
          }).finally(() => event.setComponent(staticComponent(["too late"])));
        });
      }),
    },
  });
  await harness.host.load(["/ext/eager.ts"]);
  assert.ok(createTool(harness) instanceof ToolUse);
  assert.ok(createTool(harness) instanceof ToolUse);
  assert.equal(calls, 2);
  assert.equal(harness.reports.length, 1);
  assert.match(
    harness.reports[0]!,
    /"eager": its "tool" UI handler returned a promise; UI handlers must be synchronous/,
  );
  reject(new Error("late failure"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(harness.host.loaded[0]?.enabled, false);
  assert.match(
    harness.reports.at(-1)!,
    /"eager" was disabled: its "tool" UI handler rejected: late failure/,
  );
});

Deno.test("a component that throws while rendering falls back to the one it replaced", async () => {
  let fail = false;
  const harness = makeHarness({
    modules: {
      "/ext/fragile.ts": moduleOf((panto) => {
        panto.on("tool", (event) => {
          event.setComponent({
            render: (width) => {
              if (fail) throw new Error("render failure");
              return ["fragile".slice(0, width)];
            },
            firstLineChanged: () => null,
            invalidate: () => {},
          });
        });
      }),
    },
  });
  await harness.host.load(["/ext/fragile.ts"]);
  const component = createTool(harness);
  assert.deepEqual(component.render(40), ["fragile"]);
  assert.equal(component.firstLineChanged(), null);
  fail = true;
  const data = { callId: "c1", name: "read", args: '{"path":"a.txt"}' };
  assert.deepEqual(component.render(40), new ToolUse(data).render(40), "the default takes over");
  assert.equal(component.firstLineChanged(), 0, "the switch repaints the whole component");
  assert.equal(harness.host.loaded[0]?.enabled, false);
  assert.match(
    harness.reports[0]!,
    /"fragile" was disabled: a component it chose for "tool" threw: render failure/,
  );
});

Deno.test("emit mounts the component a handler chose; unsubscribing stops the handler", async () => {
  let api: PantoApi | undefined;
  let off = () => {};
  const harness = makeHarness({
    modules: {
      "/ext/panel.ts": moduleOf((panto) => {
        off = panto.on<{ title: string }>("panel:show", (event) => {
          event.setComponent(new Text(`panel ${event.data.title}`));
        });
      }),
      "/ext/trigger.ts": moduleOf((panto) => {
        api = panto;
      }),
    },
  });
  await harness.host.load(["/ext/panel.ts", "/ext/trigger.ts"]);
  api!.emit("panel:show", { title: "one" });
  assert.equal(harness.mounted.length, 1);
  assert.equal(harness.mounted[0]!.eventName, "panel:show");
  assert.match(harness.mounted[0]!.component.render(40).join("\n"), /panel one/);
  off();
  api!.emit("panel:show", { title: "two" });
  assert.equal(harness.mounted.length, 1, "no handler, nothing mounted");
});

Deno.test("getConversation hands out a frozen snapshot the extension cannot write through", async () => {
  const message: Message = {
    role: "assistant",
    content: [{ type: "text", text: "original" }],
    timestamp: "2025-01-01T00:00:00.000Z",
  };
  let seen: readonly Message[] = [];
  const failures: string[] = [];
  const harness = makeHarness({
    modules: {
      "/ext/reader.ts": moduleOf((panto) => {
        panto.registerCommand("peek", {
          description: "Try to edit the conversation",
          run: (_args, ctx) => {
            seen = ctx.getConversation();
            const writes = [
              () => (seen as Message[]).push(message),
              () => ((seen[0]!.content[0] as { text: string }).text = "edited"),
              () => ((seen[0] as { role: string }).role = "user"),
            ];
            for (const write of writes) {
              try {
                write();
              } catch (error) {
                failures.push((error as Error).name);
              }
            }
          },
        });
      }),
    },
  });
  harness.conversation.push(message);
  await harness.host.load(["/ext/reader.ts"]);
  await harness.host.runCommand("peek", "");
  assert.deepEqual(failures, ["TypeError", "TypeError", "TypeError"]);
  assert.equal(harness.conversation.length, 1);
  assert.equal((harness.conversation[0]!.content[0] as { text: string }).text, "original");
  assert.equal(harness.conversation[0]!.role, "assistant");
  assert.deepEqual(seen, harness.conversation, "the snapshot has the same content");

  harness.conversation.push({ role: "user", content: [], timestamp: message.timestamp });
  assert.equal(seen.length, 1, "a snapshot does not follow later changes");
  await harness.host.runCommand("peek", "");
  assert.equal(seen.length, 2, "a new call sees them");
});

Deno.test("handleUncaughtError disables the extension whose module is on the stack", async () => {
  const harness = makeHarness();
  await harness.host.load([fixturePath("full.ts")]);
  let thrown: unknown;
  try {
    explode();
  } catch (error) {
    thrown = error;
  }
  assert.equal(harness.host.handleUncaughtError(new Error("not from an extension")), false);
  assert.equal(harness.host.handleUncaughtError("a string has no stack"), false);
  assert.equal(harness.host.handleUncaughtError(thrown), true);
  assert.equal(harness.host.loaded[0]?.enabled, false);
  assert.match(
    harness.reports[0]!,
    /"full" was disabled: it threw outside a handler: exploded outside any handler \(at .*full\.ts:\d+:\d+\)/,
  );
  assert.equal(
    harness.host.handleUncaughtError(thrown),
    true,
    "still attributed, reported only once",
  );
  assert.equal(harness.reports.length, 1);
});

Deno.test("a disabled extension's later API calls are ignored", async () => {
  let api: PantoApi | undefined;
  const harness = makeHarness({
    modules: {
      "/ext/late.ts": moduleOf((panto) => {
        api = panto;
        panto.registerCommand("fail", {
          description: "",
          run: () => {
            throw new Error("x");
          },
        });
      }),
    },
  });
  await harness.host.load(["/ext/late.ts"]);
  await harness.host.runCommand("fail", "");
  api!.registerCommand("again", { description: "", run: () => {} });
  api!.registerKeybinding("ctrl+g", () => {});
  api!.registerTool({
    decl: { name: "late_tool", description: "", inputSchema: {} },
    execute: () => [],
  });
  api!.notify("still here?");
  assert.equal(harness.host.commands().size, 0);
  assert.equal(harness.host.handleKey(CTRL_G), false);
  assert.equal(harness.tools.has("late_tool"), false);
  assert.deepEqual(harness.notifications, []);
});

Deno.test("extensions see panto's version, cwd and mode; same-named files get distinct names", async () => {
  const seen: string[] = [];
  const record = moduleOf((panto) => {
    seen.push(`${panto.version} ${panto.cwd} ${panto.mode}`);
  });
  const harness = makeHarness({
    mode: "print",
    modules: { "/a/same.ts": record, "/b/same.ts": record },
  });
  await harness.host.load(["/a/same.ts", "/b/same.ts"]);
  assert.deepEqual(seen, ["9.9.9 /project print", "9.9.9 /project print"]);
  assert.deepEqual(harness.host.loaded.map((e) => e.name), ["same", "same-2"]);
});

Deno.test("an extension whose load never finishes is reported and disabled after the timeout; the next one loads", async () => {
  let release = () => {};
  const harness = makeHarness({
    loadTimeoutMs: 50,
    modules: {
      "/ext/hangs.ts": moduleOf((panto) => {
        panto.registerCommand("never", { description: "never", run: () => {} });
        return new Promise<void>((resolve) => (release = resolve));
      }),
      "/ext/fine.ts": moduleOf((panto) => {
        panto.registerCommand("fine", { description: "fine", run: () => {} });
      }),
    },
  });
  await harness.host.load(["/ext/hangs.ts", "/ext/fine.ts"]);
  assert.match(harness.reports.join("\n"), /hangs.*did not finish loading within 50 ms/);
  assert.deepEqual([...harness.host.commands().keys()], ["fine"]);
  assert.deepEqual(harness.host.loaded.map((e) => e.enabled), [false, true]);
  release();
});

Deno.test("a command's ctx.select asks the app's picker and gets the chosen value", async () => {
  const harness = makeHarness({
    modules: {
      "/ext/pick.ts": moduleOf((panto) => {
        panto.registerCommand("branch", {
          description: "Pick a branch",
          run: async (_args, ctx) => {
            const branch = await ctx.select("Branch", [
              { value: "main", label: "main" },
              { value: "dev", label: "dev", description: "ahead by 2" },
            ]);
            ctx.notify(`picked ${branch}`);
          },
        });
      }),
    },
  });
  await harness.host.load(["/ext/pick.ts"]);
  assert.equal(await harness.host.runCommand("branch", ""), true);
  assert.deepEqual(harness.selects, ["Branch"]);
  assert.deepEqual(harness.notifications, [{ text: "picked dev", level: undefined }]);
});
