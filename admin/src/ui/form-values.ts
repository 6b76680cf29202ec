// What forms hold and how the API's answers map onto their fields: plain functions, no rendering.

/** A field's value as the form holds it: text, a checkbox, a multiple choice, or rows of parts (a game's prizes). */
export type Value = string | boolean | string[] | Record<string, string>[];
export type Values = Record<string, Value>;

/**
 * The API's 400 message (`"pointsCost" must be at least 0; "name" is required`) split by the field
 * each part names, so each shows beside its field; a part naming no field of the form (or none at
 * all) is the form's. A nested name (`discountConfig.value`, `prizes.0.name`) belongs to the
 * longest field name it starts with.
 */
export function fieldErrors(message: string, fields: string[]): { byField: Record<string, string>; rest: string[] } {
  const byField: Record<string, string> = {};
  const rest: string[] = [];
  // The API joins its issues with "; ", each starting with what it names; a semicolon inside one sentence stays in it.
  for (const part of message.split(/;\s+(?="|Unknown (?:field|query parameter) "|Query parameter "|The request )/)) {
    const named = /^(?:Unknown (?:field|query parameter) |Query parameter )?"([^"]+)"/.exec(part)?.[1];
    const field = named === undefined ? undefined
      : fields.filter((name) => named === name || named.startsWith(`${name}.`)).sort((a, b) => b.length - a.length)[0];
    const sentence = /[.!?]$/.test(part) ? part : `${part}.`;
    if (field === undefined) rest.push(sentence);
    else byField[field] = byField[field] ? `${byField[field]} ${sentence}` : sentence;
  }
  return { byField, rest };
}

/** A check the form makes itself before asking the server (passwords that differ), shown beside its field. */
export class FieldError extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
  }
}

/** A number from a field's text, or null when empty; the text itself when it is not one, so the API says what is wrong beside the field. */
export function numberOrText(text: Value): number | string | null {
  if (typeof text !== 'string' || text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}
