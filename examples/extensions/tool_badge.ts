/**
 * Example panto extension: wraps the component of every tool call so each
 * of its lines starts with a ⚙ badge, and binds ctrl+shift+b to toggle the
 * badge. It shows the UI event pattern: take `event.getComponent()`, wrap
 * it, hand the wrapper to `event.setComponent()`. panto keeps driving the
 * inner component with the call's arguments and result.
 *
 * Try it with `npx -y deno@2.9.6 task -q panto -e examples/extensions/tool_badge.ts`.
 *
 * @module
 */
import type { PantoApi } from "@panto/cli";
import type { Component } from "@panto/tui";

const BADGE = "⚙ ";
/** "⚙" (U+2699) takes one terminal column, the space another. */
const BADGE_WIDTH = 2;

/** Handles the "tool" UI event and registers the ctrl+shift+b toggle. */
export default function toolBadge(panto: PantoApi): void {
  let shown = true;
  panto.on("tool", (event) => {
    const inner = event.getComponent();
    if (inner !== undefined) event.setComponent(withBadge(inner, () => shown));
  });
  panto.registerKeybinding("ctrl+shift+b", (ctx) => {
    shown = !shown;
    ctx.notify(`Tool badges ${shown ? "on" : "off"}`);
  }, "Toggle the ⚙ badge on tool calls");
}

function withBadge(inner: Component, isShown: () => boolean): Component {
  let renderedWithBadge: boolean | undefined;
  return {
    render(width) {
      renderedWithBadge = isShown() && width > BADGE_WIDTH;
      if (!renderedWithBadge) return inner.render(width);
      return inner.render(width - BADGE_WIDTH).map((line) => BADGE + line);
    },
    // A toggle changes every line; otherwise the inner component knows.
    firstLineChanged: () => (renderedWithBadge !== isShown() ? 0 : inner.firstLineChanged()),
    invalidate: () => inner.invalidate(),
  };
}
