import assert from "node:assert/strict";
import {
  KeyboardNegotiator,
  KITTY_POP,
  MODIFY_OTHER_KEYS_OFF,
  MODIFY_OTHER_KEYS_ON,
} from "../../tui/kitty.ts";

function negotiator(fallbackMs = 1000) {
  const writes: string[] = [];
  const instance = new KeyboardNegotiator((data) => writes.push(data), { fallbackMs });
  return { instance, writes };
}

Deno.test("KeyboardNegotiator: queries Kitty flags then DA1", () => {
  const { instance, writes } = negotiator();
  instance.start();
  assert.deepEqual(writes, ["\x1b[?u\x1b[c"]);
  assert.equal(instance.protocol, "pending");
  instance.dispose();
});

Deno.test("KeyboardNegotiator: a Kitty answer pushes flags 1|2|4 and pops them on restore", () => {
  const { instance, writes } = negotiator();
  instance.start();
  assert.ok(instance.handle("\x1b[?0u"));
  assert.ok(instance.handle("\x1b[?62;22c"), "the DA1 answer that follows is swallowed too");
  assert.equal(instance.protocol, "kitty");
  assert.deepEqual(writes.slice(1), ["\x1b[>7u"]);
  assert.equal(instance.restoreSequence(), KITTY_POP);
  instance.dispose();
});

Deno.test("KeyboardNegotiator: DA1 without a Kitty answer falls back to modifyOtherKeys", () => {
  const { instance, writes } = negotiator();
  instance.start();
  assert.ok(instance.handle("\x1b[?1;2c"));
  assert.equal(instance.protocol, "modifyOtherKeys");
  assert.deepEqual(writes.slice(1), [MODIFY_OTHER_KEYS_ON]);
  assert.equal(instance.restoreSequence(), MODIFY_OTHER_KEYS_OFF);
  assert.ok(instance.handle("\x1b[?1u"), "a late Kitty answer is swallowed");
  assert.equal(instance.protocol, "modifyOtherKeys", "…but changes nothing");
  instance.dispose();
});

Deno.test("KeyboardNegotiator: silence falls back to modifyOtherKeys after the delay", async () => {
  const { instance, writes } = negotiator(20);
  instance.start();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(instance.protocol, "modifyOtherKeys");
  assert.deepEqual(writes.slice(1), [MODIFY_OTHER_KEYS_ON]);
  instance.dispose();
});

Deno.test("KeyboardNegotiator: other input passes through; nothing to restore while pending", () => {
  const { instance } = negotiator();
  instance.start();
  assert.equal(instance.handle("a"), false);
  assert.equal(instance.handle("\x1b[A"), false);
  assert.equal(instance.handle("\x1b[99;5u"), false);
  assert.equal(instance.restoreSequence(), "");
  instance.dispose();
});

Deno.test("KeyboardNegotiator: resume re-enables the negotiated protocol", () => {
  const { instance, writes } = negotiator();
  instance.start();
  instance.handle("\x1b[?0u");
  writes.length = 0;
  instance.resume();
  assert.deepEqual(writes, ["\x1b[>7u"]);
  instance.dispose();
});
