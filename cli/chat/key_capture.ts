import {
  type Component,
  formatKey,
  matchesKey,
  Panel,
  parseKey,
  Text,
  type Theme,
  type TUI,
} from "@panto/tui";

/**
 * Shows "press a key" in a bordered panel in place of `replace` (the
 * editor) and resolves with the spec of the next key pressed
 * (`ctrl+n`, `alt+enter`), or `null` on esc. Input that is not a key (a
 * paste, a mouse report) is ignored, and so is a key that types text
 * (`a`, `shift+a`): the panel's title asks for ctrl or alt with it.
 *
 * @param tui The engine.
 * @param theme Colours.
 * @param title The panel's title (what the key is for).
 * @param replace The component the panel stands in for while open.
 * @returns The key's spec, or `null`.
 *
 * @example
 * ```ts ignore
 * const key = await captureKey(tui, theme, "Key for app.nextModel", editor);
 * if (key) tui.keybindings.override("app.nextModel", [key]);
 * ```
 */
export function captureKey(
  tui: TUI,
  theme: Theme,
  title: string,
  replace: Component,
): Promise<string | null> {
  const { promise, resolve } = Promise.withResolvers<string | null>();
  const previousFocus = tui.focusedComponent;
  const prompt = new Text("Press the key (or key combination) to use now.", {
    style: (line) => theme.fg("muted", line),
  });
  const panel = new Panel(prompt, {
    title,
    hints: ["esc cancel"],
    theme,
    onKey: (data) => {
      const key = parseKey(data);
      // A release or repeat (Kitty protocol) follows the press that already chose.
      if (key === null || key.event !== "press") return true;
      if (key.text !== undefined && !key.ctrl && !key.alt && !key.super) {
        // A key that types text would stop typing it in the editor.
        panel.setTitle(`${title}: ${formatKey(key)} types text; use ctrl or alt with it`);
        tui.requestRender();
        return true;
      }
      done(matchesKey(data, "escape") ? null : formatKey(key));
      return true;
    },
  });
  const done = (spec: string | null) => {
    const at = tui.children.indexOf(panel);
    tui.removeChild(panel);
    tui.insertChild(Math.max(0, at), replace);
    tui.setFocus(previousFocus);
    tui.requestRender();
    resolve(spec);
  };
  tui.insertChild(Math.max(0, tui.children.indexOf(replace)), panel);
  tui.removeChild(replace);
  tui.setFocus(panel);
  tui.requestRender();
  return promise;
}
