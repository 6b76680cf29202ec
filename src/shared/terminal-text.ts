// Text a terminal shows is never allowed to drive it. Control characters (C0, DEL, C1: ESC starts a
// sequence that can rewrite the screen or the window title, BEL rings) and bidirectional controls
// (they reorder what a reader sees) are written as `\u001b`-style escapes wherever the CLI prints a
// value or the server logs a line, whatever their source: a store, an old row, a bug.

const UNSAFE = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu;
const UNSAFE_BUT_LINES = /[^\P{Cc}\n]|[\u202A-\u202E\u2066-\u2069]/gu;
/** What JSON.stringify leaves as it is: DEL, C1 and the bidirectional controls (it escapes C0 itself). */
const UNSAFE_IN_JSON = /[\u007F-\u009F\u202A-\u202E\u2066-\u2069]/gu;

const escapeChar = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One value on one line (a table cell): every control character escaped, line breaks and tabs too. */
export const terminalText = (text: string): string => text.replace(UNSAFE, escapeChar);

/** Lines of text (a log message, a stack trace): every control character but the line break escaped. */
export const terminalLines = (text: string): string => text.replace(UNSAFE_BUT_LINES, escapeChar);

/** JSON text with what JSON leaves raw escaped too; it stays the same JSON. */
export const terminalJson = (json: string): string => json.replace(UNSAFE_IN_JSON, escapeChar);
