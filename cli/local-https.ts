import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { ListenWith } from '../src/server.ts';

/**
 * `serve --https`, for development only: a shop's pages are HTTPS, and a widget calling an http://
 * API from them is blocked as mixed content. listhen serves with a self-signed certificate for
 * localhost, 127.0.0.1 and ::1; it is kept beside the database and reused, so a browser or tool
 * told to trust it once keeps trusting it. Production TLS belongs to the reverse proxy.
 */
export interface LocalCertificate {
  certFile: string;
  keyFile: string;
  validTo: string;
}

const DOMAINS = ['localhost', '127.0.0.1', '::1'];
const VALIDITY_DAYS = 365;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

export const certificateFiles = (db: string) => ({
  certFile: join(dirname(db), 'punchcard-localhost.crt'),
  keyFile: join(dirname(db), 'punchcard-localhost.key'),
});

/** A saved certificate that still has a day to run, as PEM text. */
function savedCertificate(certFile: string, keyFile: string): { cert: string; key: string } | null {
  if (!existsSync(certFile) || !existsSync(keyFile)) return null;
  const cert = readFileSync(certFile, 'utf8');
  if (new Date(new X509Certificate(cert).validTo).getTime() < Date.now() + 86_400_000) return null;
  return { cert, key: readFileSync(keyFile, 'utf8') };
}

/** Listens through listhen with the saved certificate, or a new one it makes (then saved, the key 0600). */
export function listenHttps(db: string, onCertificate: (certificate: LocalCertificate) => void): ListenWith {
  return async (handler, port, host) => {
    const { listen } = await import('listhen'); // only for --https: the plain server never loads it
    const { certFile, keyFile } = certificateFiles(db);
    const saved = savedCertificate(certFile, keyFile);
    const listener = await listen(handler, {
      // PEM text (it starts with "-----") is taken as the certificate itself, not a path.
      https: saved ?? { domains: DOMAINS, validityDays: VALIDITY_DAYS },
      hostname: host,
      // Exactly this port, or an error: listhen would otherwise move to another port quietly.
      port: { port, random: port === 0, alternativePortRange: [port, port], verbose: false },
      public: !LOOPBACK.has(host),
      showURL: false, open: false, clipboard: false, isProd: true, autoClose: false, qr: false,
    });
    if (!listener.https) throw new Error('listhen did not serve HTTPS');
    if (!saved) {
      writeFileSync(keyFile, listener.https.key, { mode: 0o600 });
      chmodSync(keyFile, 0o600);
      writeFileSync(certFile, listener.https.cert);
    }
    onCertificate({ certFile, keyFile, validTo: new X509Certificate(listener.https.cert).validTo });
    return { server: listener.server, url: listener.url.replace(/\/$/, '') };
  };
}

/** What `serve --https` prints under its URL: where the certificate is and how to trust it. */
export const trustHelp = (url: string, certificate: LocalCertificate) => `
HTTPS for local development, with a self-signed certificate (valid until ${certificate.validTo}):
  ${certificate.certFile}
Trust it once: open ${url} in the browser and accept the certificate (Chrome: Advanced → Proceed;
Firefox: Advanced → Accept the Risk); curl: curl --cacert ${certificate.certFile} ${url}/
For development only: in production a reverse proxy holds the real certificate (docs/production.md).`;
