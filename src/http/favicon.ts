/**
 * The pages' icon (a punched card's star on the brand's indigo), served from this server so every
 * page's policy allows it (`img-src 'self'`); linked from each page, so browsers do not ask for
 * /favicon.ico, which would be a 404 in every visitor's console.
 */
const FAVICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#4f46e5"/>'
  + '<path d="M16 6l3 6.5 7 .8-5.2 4.8 1.4 7L16 21.6l-6.2 3.5 1.4-7L6 13.3l7-.8z" fill="#fff"/></svg>';

export const FAVICON_PATH = '/favicon.svg';

export const FAVICON_LINK = `<link rel="icon" type="image/svg+xml" href="${FAVICON_PATH}">`;

export const faviconResponse = () =>
  new Response(FAVICON_SVG, { headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' } });
