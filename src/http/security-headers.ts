import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from 'node:http';

type HeaderList = OutgoingHttpHeaders | OutgoingHttpHeader[];

/**
 * On every response, before any handler runs (so 404s and errors carry them too). The API answers
 * JSON that nothing may frame, sniff into HTML or run; the HTML pages set their own policy. No
 * Cross-Origin-Resource-Policy here: shops load /widget.js and call /api/widget from their own origin.
 * No cache keeps an answer unless its handler says it may (the widget's script, strings and icon
 * do): API answers hold members' data, coupon codes and session tokens.
 */
const HEADERS: [string, string][] = [
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
  ['x-frame-options', 'DENY'],
  ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
  ['cache-control', 'no-store'],
];

/**
 * The policy of the HTML pages (start page, docs, demo): their own scripts and styles and the
 * widget, which calls this server and shows reward images from anywhere over https; never framed.
 */
export const htmlPolicy = (nonce: string) =>
  `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; `
  + "connect-src 'self'; font-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Whether the request announced a body (a GET without one is never "complete" until read, yet has nothing left to read). */
const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** Whether a header list passed to writeHead (an object, a flat [name, value, …] array, or [name, value] pairs) names `name`. */
function names(headers: HeaderList | undefined, name: string): boolean {
  if (!headers) return false;
  if (!Array.isArray(headers)) return Object.keys(headers).some((key) => key.toLowerCase() === name);
  return headers.flat().some((entry, i) => i % 2 === 0 && String(entry).toLowerCase() === name);
}

/**
 * Wraps a Node request listener so every response starts with the security headers (a handler's
 * own values win) and the standard reason phrase, and so an answer sent before the request's body
 * has arrived (a 401, a 404, a 413) closes the connection: Node would otherwise read and discard the
 * rest of the body, however large.
 *
 * The headers are added to the list writeHead is given, never with setHeader beforehand: on Node 20,
 * once setHeader was called, writeHead applies a list's entries with setHeader too, so of two
 * Set-Cookie lines (a session and a device cookie) only the last was sent.
 */
export function withSecurityHeaders(listener: (req: IncomingMessage, res: ServerResponse) => unknown) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, status: number, reason?: string | HeaderList, headers?: HeaderList) {
      const message = typeof reason === 'string' ? reason : undefined;
      let list = typeof reason === 'string' || reason === undefined ? headers : reason;
      const closing: [string, string][] = !req.complete && hasBody(req) ? [['connection', 'close']] : [];
      const missing = [...HEADERS, ...closing].filter(([name]) => !this.hasHeader(name) && !names(list, name));
      if (Array.isArray(list)) list = [...list.flat(), ...missing.flat()] as OutgoingHttpHeader[];
      else if (list) list = { ...Object.fromEntries(missing), ...list };
      else for (const [name, value] of missing) this.setHeader(name, value);
      // h3 answers with an empty statusText unless a handler sets one, which Node would send as an
      // empty reason phrase ("HTTP/1.1 200 "): valid, but every other server says "200 OK".
      // (Reflect.apply: @types/node types writeHead's three-argument form as an overload .call misses.)
      return Reflect.apply(writeHead, this, [status, message || (STATUS_CODES[status] ?? ''), list]);
    } as typeof writeHead;
    return listener(req, res);
  };
}
