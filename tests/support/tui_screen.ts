import { TUI } from "../../tui/tui.ts";
import { VirtualTerminal } from "./virtual_terminal.ts";

/** A started engine on an emulated terminal; `await using` stops and disposes both. */
export interface TuiScreen extends AsyncDisposable {
  /** The emulator the engine paints on. */
  readonly terminal: VirtualTerminal;
  /** The started engine. */
  readonly tui: TUI;
  /** Renders a frame now and waits for the emulator to catch up. */
  frame(): Promise<void>;
}

/**
 * Starts a {@linkcode TUI} on a fresh {@linkcode VirtualTerminal}.
 *
 * @example
 * ```ts ignore
 * await using t = startTui(20, 5);
 * t.tui.addChild(component);
 * await t.frame();
 * ```
 *
 * @param columns The terminal's width.
 * @param rows The terminal's height.
 * @returns The screen; dispose it to stop the engine and the emulator.
 */
export function startTui(columns: number, rows: number): TuiScreen {
  const terminal = new VirtualTerminal(columns, rows);
  const tui = new TUI(terminal);
  tui.start();
  return {
    terminal,
    tui,
    async frame() {
      tui.renderNow();
      await terminal.flush();
    },
    async [Symbol.asyncDispose]() {
      tui.stop();
      await terminal.flush();
      terminal.dispose();
    },
  };
}
