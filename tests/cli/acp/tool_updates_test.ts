import assert from "node:assert/strict";
import {
  resultContent,
  toolKind,
  toolLocations,
  toolTitle,
} from "../../../cli/acp/tool_updates.ts";

Deno.test("toolKind: the built-in tools' kinds, other for the rest", () => {
  const kinds = ["read", "write", "edit", "bash", "grep", "find", "ls", "mcp_x"].map(toolKind);
  assert.deepEqual(kinds, [
    "read",
    "edit",
    "edit",
    "execute",
    "search",
    "search",
    "search",
    "other",
  ]);
});

Deno.test("toolTitle: the command's first line, else the path and pattern", () => {
  assert.equal(toolTitle("bash", { command: "npm test\necho done" }), "bash: npm test …");
  assert.equal(toolTitle("grep", { pattern: "TODO", path: "src" }), "grep src TODO");
  assert.equal(toolTitle("ls", {}), "ls");
});

Deno.test("toolLocations: absolute paths, with the first line read", () => {
  assert.deepEqual(toolLocations({ path: "a.ts", offset: 10 }, "/p"), [{
    path: "/p/a.ts",
    line: 10,
  }]);
  assert.deepEqual(toolLocations({ path: "/etc/hosts" }, "/p"), [{ path: "/etc/hosts" }]);
  assert.deepEqual(toolLocations({ command: "ls" }, "/p"), []);
});

Deno.test("resultContent: text and image parts", () => {
  assert.deepEqual(
    resultContent([{ type: "text", text: "ok" }, {
      type: "image",
      mediaType: "image/png",
      data: "AA",
    }]),
    [
      { type: "content", content: { type: "text", text: "ok" } },
      { type: "content", content: { type: "image", mimeType: "image/png", data: "AA" } },
    ],
  );
});
