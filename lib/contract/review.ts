/** The limits of reviews, without zod: the browser's forms import them (lib/contract/requests.ts checks them). */

/** An annotation's or a verdict's note, at most: a short remark for the person who shared the trace. */
export const MAX_NOTE_CHARS = 1000;
