import assert from "node:assert/strict";
import { DEFAULT_KEYBINDINGS, Keybindings } from "../../tui/keybindings.ts";

Deno.test("Keybindings: defaults match their keys", () => {
  const bindings = new Keybindings();
  assert.ok(bindings.matches("\r", "editor.submit"));
  assert.ok(bindings.matches("\x1b[13;2u", "editor.newline"));
  assert.ok(bindings.matches("\x1a", "tui.suspend"));
  assert.ok(!bindings.matches("\r", "editor.newline"));
  assert.deepEqual(bindings.keys("editor.submit"), DEFAULT_KEYBINDINGS["editor.submit"]);
});

Deno.test("Keybindings: app actions and overrides", () => {
  const bindings = new Keybindings({ "app.exit": ["ctrl+c"], "editor.submit": ["ctrl+enter"] });
  assert.ok(bindings.matches("\x03", "app.exit"));
  assert.ok(!bindings.matches("\r", "editor.submit"), "extra bindings replace defaults");
  assert.ok(bindings.matches("\x1b[13;5u", "editor.submit"));
  bindings.override("app.exit", ["ctrl+q", "ctrl+d"]);
  assert.ok(!bindings.matches("\x03", "app.exit"));
  assert.ok(bindings.matches("\x11", "app.exit"));
  assert.ok(bindings.matches("\x04", "app.exit"));
  bindings.override("app.exit", []);
  assert.ok(!bindings.matches("\x11", "app.exit"), "an empty list unbinds");
  assert.deepEqual(bindings.keys("no.such.action"), []);
});

Deno.test("Keybindings: actionFor picks within a scope", () => {
  const bindings = new Keybindings();
  assert.equal(bindings.actionFor("\x1b[A", ["select.up", "select.down"]), "select.up");
  assert.equal(bindings.actionFor("\x1b[A", ["editor.down"]), undefined);
});

Deno.test("Keybindings: a typo in an override is reported", () => {
  const bindings = new Keybindings();
  assert.throws(() => bindings.override("app.exit", ["crtl+c"]), /Unknown modifier "crtl"/);
});
