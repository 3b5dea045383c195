import type { ImageBlock, ProviderConfig, UserMessage } from "@panto/lib";
import { optionalEnv } from "../shared/env.ts";
import { errorMessage } from "../shared/error_message.ts";
import { CliError } from "../shared/errors.ts";
import { expandAttachments } from "./attachments.ts";
import type { ControllerEvent } from "./controller_events.ts";
import type { TakenContext } from "./next_prompt_context.ts";

/** Where a prompt is sent from, and who hears about its files. */
export interface PromptSetting {
  /** The working directory (`@path` words are relative to it). */
  cwd: string;
  /** The model it goes to (whether it reads images). */
  provider: ProviderConfig;
  /** Tells the views which files were attached, and images a model cannot read. */
  emit: (event: ControllerEvent) => void;
}

/**
 * The prompt as a user message: its text and pasted images first, as
 * given (see `danglingPrompt`), then as attachments the files of its
 * `@path` words (a text prompt's), pending `!shell` output and the branch
 * summary.
 *
 * @param message Text (`@path` words attach files) or a user message sent as is.
 * @param images Pasted images of a text prompt.
 * @param context What goes with it (taken from {@linkcode NextPromptContext}).
 * @param setting The directory, the model and the views.
 * @returns The message to send.
 * @throws {CliError} When a `@path` file cannot be read.
 */
export async function promptMessage(
  message: string | UserMessage,
  images: readonly ImageBlock[],
  context: TakenContext,
  setting: PromptSetting,
): Promise<UserMessage> {
  // The summary's request is paid for with this prompt: stored on it, counted in the session's cost.
  const spent = context.spent === undefined ? {} : { spent: context.spent };
  if (typeof message !== "string") {
    return {
      ...message,
      attachments: [...message.attachments ?? [], ...context.blocks],
      ...spent,
    };
  }
  let expanded;
  try {
    expanded = await expandAttachments(message, setting.cwd, optionalEnv("HOME"));
  } catch (error) {
    throw new CliError(`Could not attach a file: ${errorMessage(error)}`);
  }
  if (expanded.files.length) {
    setting.emit({ type: "notice", level: "info", text: `Attached ${expanded.files.join(", ")}` });
  }
  const imageCount = [...images, ...expanded.blocks].filter((b) => b.type === "image").length;
  warnTextOnly(imageCount, setting);
  return {
    text: message,
    images: [...images],
    attachments: [...expanded.blocks, ...context.blocks],
    ...spent,
  };
}

/** Says so when images go to a model that takes text only (the agent sends a note instead). */
function warnTextOnly(images: number, setting: PromptSetting): void {
  const { input, model } = setting.provider;
  if (images === 0 || !input || input.includes("image")) return;
  setting.emit({
    type: "notice",
    level: "warning",
    text: `${model} takes text only: ${
      images === 1 ? "the image is" : `the ${images} images are`
    } not sent (a note says so to the model); switch to a model that reads images (ctrl+p, /model)`,
  });
}
