/**
 * The transcript viewer (alt+o, or ctrl+o once the tool call to expand has
 * scrolled away): the whole conversation of the session's active branch,
 * tool output expanded, in a pager on the terminal's alternate screen.
 *
 * @module
 */
import type { Message } from "@panto/lib";
import {
  type FullScreenHandle,
  Pager,
  type PagerContent,
  type PagerStart,
  type Theme,
  type TUI,
} from "@panto/tui";
import { TranscriptView } from "./transcript_view.ts";
import type { UiEvents } from "./ui_events.ts";

/** What the viewer draws. */
export interface TranscriptViewerSource {
  /** The UI events, so extensions' components look as in the chat. */
  events: UiEvents;
  /** Colours. */
  theme: Theme;
  /** The conversation (the active branch). */
  messages: readonly Message[];
  /** Whether thinking blocks are shown. */
  showThinking: boolean;
}

/**
 * The conversation as the chat draws it, every tool call and summary
 * expanded, at `width`: the components' lines with a blank line between
 * them, each tool call's first line marked (images show as placeholders).
 */
export function transcriptContent(source: TranscriptViewerSource, width: number): PagerContent {
  const view = new TranscriptView(source.events, source.theme, source.showThinking);
  view.setExpanded(true);
  const lines: string[] = [];
  const marks: number[] = [];
  view.history(source.messages).forEach((component, index) => {
    if (index > 0) lines.push("");
    if (view.isToolCall(component)) marks.push(lines.length);
    lines.push(...component.render(width));
  });
  return { lines, marks };
}

/**
 * Opens the viewer over the chat, at the end of the conversation or at its
 * last tool call (`start`); q, esc, alt+o or ctrl+o closes it and the chat
 * is back as it was.
 */
export function showTranscriptViewer(
  tui: TUI,
  source: TranscriptViewerSource,
  start: PagerStart,
): FullScreenHandle {
  const keys = tui.keybindings;
  const pager = new Pager({
    content: (width) => transcriptContent(source, width),
    rows: () => tui.terminal.rows,
    onClose: () => handle.close(),
    // The keys that open it close it too, as ctrl+o toggles Claude Code's transcript.
    closes: (data) => keys.matches(data, "app.transcript") || keys.matches(data, "app.expandTools"),
    theme: source.theme,
    title: "transcript",
    markName: "tool call",
    start,
  });
  const handle = tui.showFullScreen(pager);
  return handle;
}
