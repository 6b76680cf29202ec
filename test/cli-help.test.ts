import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../src/schemas/catalog.ts';
import { punchcard } from './helpers/cli.ts';

// `punchcard --help` and each command's help, as an operator reads them: the values an option
// takes, what each group of commands is for, and `project` told from `projects`.

/** Help text with commander's line wrapping undone, so a phrase can be looked for whole. */
const help = (...args: string[]) => {
  const result = punchcard([...args, '--help']);
  expect(result.status).toBe(0);
  return result.stdout.replace(/\s+/g, ' ');
};

/** The commands a group's own help lists. */
const subcommands = (group: string) => {
  const text = punchcard([group, '--help']).stdout;
  return [...text.slice(text.indexOf('Commands:')).matchAll(/^ {2}([a-z-]+)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
};

/** A picklist's values, read through any optional/nullable wrapper and pipe, as the item schema declares them. */
function choices(schema: { type: string; wrapped?: unknown; pipe?: readonly unknown[]; options?: readonly string[] }): readonly string[] | null {
  if (schema.wrapped) return choices(schema.wrapped as typeof schema);
  const root = (schema.pipe?.[0] ?? schema) as typeof schema;
  return root.type === 'picklist' ? root.options! : null;
}

describe('punchcard help', () => {
  it('lists every value of each catalog field that takes one of a few (rewards create --type, quests create --completion-mode…)', () => {
    let checked = 0;
    for (const { kind } of CATALOGS) {
      const group = kind.command ?? kind.path;
      const text = help(group, 'create');
      for (const [field, schema] of Object.entries(kind.schema.entries)) {
        const values = choices(schema as Parameters<typeof choices>[0]);
        if (!values || !(field in kind.fields)) continue;
        expect(text, `${group} create --${field}`).toContain(`(one of ${values.join(', ')};`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(5); // reward type, game type, quest completionMode, badge rarity, promo rewardType
    expect(help('rewards', 'create')).toContain('--type <value> type (one of COUPON, PHYSICAL, DIGITAL, RAFFLE, CUSTOM; "null" clears)');
    // Inside JSON fields too.
    expect(help('rewards', 'create')).toContain('discountConfig (a JSON object: type (one of PERCENTAGE, FIXED_CART, FIXED_PRODUCT), value;');
  });

  it('lists the choices of the other options that have them', () => {
    expect(help('keys', 'create')).toMatch(/--type <type> .*choices: "secret", "publishable"/);
    expect(help('members', 'export')).toMatch(/choices: "csv", "jsonl"/);
    expect(help('webhooks', 'deliveries')).toMatch(/choices: "pending", "delivered", "dead"/);
    expect(help('claims', 'fulfil')).toMatch(/PENDING, SHIPPED, DELIVERED/);
    const serve = help('serve');
    expect(serve).toMatch(/--synchronous <mode> .*full .* or normal/);
    expect(serve).toMatch(/--log-level <level> info, error \(errors only\) or silent/);
    expect(serve).toMatch(/--log-format <format> text, or json/);
  });

  it('says what each group is for and names its commands, in the list of commands', () => {
    const top = help();
    for (const group of ['projects', 'project', 'keys', 'members', 'points', 'widget', 'webhooks', 'replicate', 'claims', 'community', 'rewards', 'quests']) {
      const names = subcommands(group);
      expect(names.length, group).toBeGreaterThan(0);
      expect(top, group).toMatch(new RegExp(` ${group} [^:]+: ${names.join(', ')}`));
    }
    expect(top).toContain(" members a project's members: list, show, import, export, data, erase ");
  });

  it('tells project from projects in one line each', () => {
    const top = help();
    expect(top).toContain(' projects the projects (tenants) themselves, each with its own keys, members, catalog and settings: create, list, update, rotate-widget-secret ');
    expect(top).toContain(' project the settings of one project (time zone, expiry, bonuses, referrals, sharing, widget), not the projects themselves: show, set ');
  });
});
