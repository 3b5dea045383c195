/**
 * The chat's approval question: a bordered panel in place of the editor,
 * under the transcript (never the alternate screen), with the call and,
 * for `edit` and `write`, the change it would make drawn as the edit tool's
 * diff. Keys: y allow once, a always, n reject with a reason (a one-line
 * box; enter sends it, esc goes back), esc reject, ctrl+c stop the run.
 *
 * @module
 */
import {
  CachedComponent,
  type Component,
  Editor,
  matchesKey,
  Panel,
  sanitizeTerminalText,
  type Theme,
  type TUI,
} from "@panto/tui";
import type { ApprovalAnswer, ApprovalRequest } from "../approvals/approval_gate.ts";
import { editView } from "./components/tools/edit_view.ts";
import { rendererFor } from "./components/tools/renderers.ts";
import { indented, type ToolCallState } from "./components/tools/tool_renderer.ts";

/** Lines of a call's arguments shown at most (other tools than the file ones). */
const MAX_ARG_LINES = 12;

/** Options for {@linkcode showApprovalDialog}. */
export interface ApprovalDialogOptions {
  /** The engine. */
  tui: TUI;
  /** Colours. */
  theme: Theme;
  /** The component the dialog stands in for (the editor). */
  replace: Component;
  /** ctrl+c: stop the run (its abort closes the dialog). */
  onInterrupt: () => void;
}

/** A call as the tool renderers see it, finished with `result` (the diff renderer reads it). */
function callState(request: ApprovalRequest, result: string, expanded: boolean): ToolCallState {
  return {
    name: request.call.name,
    args: request.call.input,
    rawArgs: JSON.stringify(request.call.input),
    status: "done",
    progress: "",
    result,
    isError: false,
    expanded,
    collapsedLines: MAX_ARG_LINES,
    elapsedMs: undefined,
  };
}

/** What the dialog shows of the call: the change for `edit`/`write`, the command, or the arguments. */
class CallPreview extends CachedComponent {
  readonly #request: ApprovalRequest;
  readonly #theme: Theme;
  #expanded = false;

  constructor(request: ApprovalRequest, theme: Theme) {
    super();
    this.#request = request;
    this.#theme = theme;
  }

  /** Shows the whole diff, or its start (ctrl+o). */
  toggleExpanded(): void {
    this.#expanded = !this.#expanded;
    this.changed();
  }

  protected build(width: number): string[] {
    const { call, preview } = this.#request;
    const theme = this.#theme;
    if (preview && "problem" in preview) {
      return indented(sanitizeTerminalText(preview.problem), width, theme, "warning");
    }
    if (preview) {
      if (preview.diff === "") return indented("(no change to the file)", width, theme, "muted");
      // The renderers take text stripped of terminal controls; the diff's summary line is skipped.
      const result = `${call.name}\n\n${sanitizeTerminalText(preview.diff)}`;
      return editView.body(callState(this.#request, result, this.#expanded), width, theme);
    }
    const command = call.name === "bash" ? call.input.command : undefined;
    const text = typeof command === "string"
      ? `$ ${command}`
      : JSON.stringify(call.input, null, 2).split("\n").slice(0, MAX_ARG_LINES).join("\n");
    return indented(sanitizeTerminalText(text), width, theme, "toolOutput");
  }
}

/**
 * Asks whether a call may run, in place of `options.replace`, focused until
 * answered; the signal's abort (the run stopped) closes it.
 *
 * @param request The call, what "always" allows, the change.
 * @param signal Closes the dialog (the answer is then a rejection nobody reads).
 * @param options The engine, colours, the editor, what ctrl+c does.
 * @returns The answer.
 */
export function showApprovalDialog(
  request: ApprovalRequest,
  signal: AbortSignal,
  options: ApprovalDialogOptions,
): Promise<ApprovalAnswer> {
  const { tui, theme } = options;
  const { promise, resolve } = Promise.withResolvers<ApprovalAnswer>();
  const previousFocus = tui.focusedComponent;
  const replaced = tui.children.includes(options.replace);
  let shown: Component;
  const show = (next: Component) => {
    const at = tui.children.indexOf(shown);
    tui.removeChild(shown);
    tui.insertChild(Math.max(0, at), next);
    shown = next;
    tui.setFocus(next);
    tui.requestRender();
  };
  const done = (answer: ApprovalAnswer) => {
    signal.removeEventListener("abort", cancel);
    if (replaced) show(options.replace);
    else tui.removeChild(shown);
    tui.setFocus(previousFocus);
    tui.requestRender();
    resolve(answer);
  };
  const cancel = () => done({ decision: "reject" });
  const preview = new CallPreview(request, theme);
  const name = sanitizeTerminalText(request.call.name);
  const summary = rendererFor(request.call.name).summary(callState(request, "", false));
  const question = new Panel(preview, {
    title: `Allow ${name} ${sanitizeTerminalText(summary)}?`.replace(/ \?$/, "?"),
    hints: [
      "y allow",
      `a always allow ${sanitizeTerminalText(request.alwaysLabel)}`,
      "n reject + reason",
      "esc reject",
      "ctrl+c stop",
    ],
    theme,
    onKey: (data) => {
      if (matchesKey(data, "y")) done({ decision: "once" });
      else if (matchesKey(data, "a")) done({ decision: "always" });
      else if (matchesKey(data, "n")) show(reasonBox);
      else if (matchesKey(data, "escape")) done({ decision: "reject" });
      else if (matchesKey(data, "ctrl+c")) options.onInterrupt();
      else if (matchesKey(data, "ctrl+o")) {
        preview.toggleExpanded();
        tui.requestRender();
      }
      // Other keys are swallowed: a stray key must not reach the transcript or the editor.
      return true;
    },
  });
  const reasonBox = reasonInput(tui, theme, name, {
    send: (reason) => done(reason ? { decision: "reject", reason } : { decision: "reject" }),
    back: () => show(question),
    interrupt: options.onInterrupt,
  });
  shown = replaced ? options.replace : question;
  if (replaced) show(question);
  else {
    tui.addChild(question);
    tui.setFocus(question);
  }
  signal.addEventListener("abort", cancel, { once: true });
  if (signal.aborted) cancel();
  return promise;
}

/** The one-line box for a rejection's reason. */
function reasonInput(
  tui: TUI,
  theme: Theme,
  name: string,
  on: { send: (reason: string) => void; back: () => void; interrupt: () => void },
): Panel {
  const editor = new Editor({
    theme,
    keybindings: tui.keybindings,
    maxRows: 1,
    requestRender: () => tui.requestRender(),
  });
  return new Panel(editor, {
    title: `Reject ${name}: why? (the model reads it)`,
    hints: ["enter reject", "esc back", "ctrl+c stop the run"],
    theme,
    onKey: (data) => {
      if (matchesKey(data, "enter")) on.send(editor.getText().replace(/\s+/g, " ").trim());
      else if (matchesKey(data, "escape")) on.back();
      else if (matchesKey(data, "ctrl+c")) on.interrupt();
      else return false;
      return true;
    },
  });
}
