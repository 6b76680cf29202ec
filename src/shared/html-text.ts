/** Text put into HTML (an element's content or a quoted attribute) as itself, never as markup. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
