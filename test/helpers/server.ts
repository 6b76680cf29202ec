import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProject, type CreatedProject } from '../../src/domain/project/projects.ts';
import { createDemoProject } from '../../src/domain/widget/widget-demo.ts';
import { openStore } from '../../src/db/store.ts';
import { startServer, type RunningServer, type ServeOptions } from '../../src/server.ts';
import { client } from './http.ts';

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public current = new Date('2026-01-15T12:00:00.000Z')) {}
  now = () => this.current;
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export const TEST_MASTER_KEY = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';

export interface TestServer extends RunningServer {
  dir: string;
  dbPath: string;
  clock: TestClock;
  /** Secret key of the "Default" project created on the empty database. */
  secretKey: string;
  publishableKey: string;
  widgetSecret: string;
  projectId: string;
  api: ReturnType<typeof client>;
  /** Creates another project (tenant) and returns its keys and a client using its secret key. */
  addProject(name: string): TestProject;
  /** With `demo: true`: the demo project (as `seed --demo` makes it, without its catalog) that /demo serves. */
  demoProject: TestProject | null;
  stop(): Promise<void>;
}

export interface TestProject { projectId: string; secretKey: string; publishableKey: string; widgetSecret: string; api: ReturnType<typeof client> }

/** A real Punchcard server on 127.0.0.1 with its own SQLite file in a temp folder. */
/**
 * Tests send hundreds of widget calls and failed checks from one address and member within one
 * frozen minute: their servers raise the public limits. test/security/ passes the real defaults.
 */
const RAISED_LIMITS: ServeOptions['guard'] = {
  rateLimits: { member: '100000/min', memberWrites: '100000/h', promoFailures: '100000/h', address: '100000/min', authFailures: '100000/h',
    promoFailuresPerAddress: '100000/h' },
};

export async function startTestServer(options: {
  clock?: TestClock; webhooks?: ServeOptions['webhooks']; guard?: ServeOptions['guard']; connections?: ServeOptions['connections']; demo?: boolean;
  admin?: ServeOptions['admin']; publicUrl?: string;
} = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-test-'));
  const dbPath = join(dir, 'punchcard.db');
  const clock = options.clock ?? new TestClock(new Date());
  let demo: CreatedProject | null = null;
  if (options.demo) {
    const store = await openStore({ path: dbPath, masterKey: TEST_MASTER_KEY });
    demo = createDemoProject(store.db, store.box, clock.now());
    store.close();
  }
  const server = await startServer({
    demo: options.demo,
    db: dbPath, port: 0, host: '127.0.0.1', logLevel: 'silent', scheduler: false, clock: clock.now, masterKey: TEST_MASTER_KEY,
    // Receivers in tests listen on 127.0.0.1 over plain http.
    webhooks: { allowInsecure: true, ...options.webhooks },
    commerce: { allowInsecure: true }, // the fake WooCommerce store listens on 127.0.0.1 over plain http
    guard: options.guard ?? RAISED_LIMITS,
    connections: options.connections,
    // Admin sign-ins in tests hash with a small scrypt cost (test/helpers/admin.ts); the server's default is OWASP's.
    admin: { passwordCost: { N: 1024, r: 8, p: 1 }, ...options.admin },
    publicUrl: options.publicUrl,
  });
  const bootstrap = server.bootstrap!;
  const testProject = (created: CreatedProject): TestProject => ({
    projectId: created.project.id, secretKey: created.secretKey, publishableKey: created.publishableKey, widgetSecret: created.widgetSecret,
    api: client(server.url, created.secretKey),
  });
  return {
    ...server,
    dir,
    dbPath,
    clock,
    secretKey: bootstrap.secretKey,
    publishableKey: bootstrap.publishableKey,
    widgetSecret: bootstrap.widgetSecret,
    projectId: bootstrap.project.id,
    api: client(server.url, bootstrap.secretKey),
    addProject: (name) => testProject(createProject(server.ctx.db, server.ctx.box, { name }, clock.now())),
    demoProject: demo && testProject(demo),
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Row counts of every table that a request could change, to assert "nothing was written". */
export function tableCounts(server: RunningServer): Record<string, number> {
  const tables = ['members', 'transactions', 'point_lots', 'idempotency_keys', 'api_keys', 'projects', 'webhooks', 'events', 'webhook_deliveries',
    'quests', 'rewards', 'badges', 'games', 'promo_codes', 'multipliers', 'levels', 'quest_progress', 'member_badges',
    'game_plays', 'social_shares',
    'reward_claims', 'promo_redemptions', 'referral_codes', 'referrals', 'commerce_stores', 'commerce_orders', 'commerce_customers', 'commerce_coupons',
    'pending_points', 'imported_email_members', 'member_imports'];
  return Object.fromEntries(tables.map((t) => [t, (server.ctx.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));
}
