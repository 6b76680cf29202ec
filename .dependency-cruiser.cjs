// The shape check run by `npm test` (docs/architecture.md): no import cycles, and imports only
// point down the layers shared ← db ← domain ← schemas / webhooks / jobs / replication ← http ← server ← cli.
const layer = (from, forbidden, comment) => ({
  name: `${from}-imports-down`,
  comment,
  severity: 'error',
  from: { path: `^src/${from}/` },
  to: { path: `^(src/(${forbidden.join('|')})(/|\\.ts$)|cli/|bench/|test/)` },
});
const above = ['domain', 'schemas', 'webhooks', 'jobs', 'replication', 'integrations', 'http', 'server'];

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'A cycle hides which module owns a concept.', from: {}, to: { circular: true } },
    { name: 'shared-imports-nothing', severity: 'error', comment: 'src/shared is the bottom layer.', from: { path: '^src/shared/' }, to: { path: '^(src/(?!shared/)|cli/)' } },
    layer('db', above, 'The database layer knows nothing of the concepts built on it.'),
    layer('domain', above.slice(1), 'The domain is plain functions over a db handle: no HTTP, no schemas, no network, no jobs.'),
    layer('schemas', ['webhooks', 'jobs', 'replication', 'integrations', 'http', 'server'], 'Request schemas are shared by HTTP and the CLI.'),
    layer('jobs', ['schemas', 'webhooks', 'replication', 'integrations', 'http', 'server'], 'The job runner and schedule take their jobs from the layers above.'),
    layer('webhooks', ['replication', 'integrations', 'http', 'server'], 'Webhooks sit on the domain and the job runner, below HTTP.'),
    layer('replication', ['schemas', 'webhooks', 'jobs', 'integrations', 'http', 'server'], 'Replication supervises Litestream over the database.'),
    layer('integrations', ['replication', 'http', 'server'], 'Integrations sit below HTTP.'),
    layer('http', ['server'], 'Routes are mounted by the server, never the other way.'),
    { name: 'src-imports-no-cli', severity: 'error', comment: 'The CLI calls src, never the reverse.', from: { path: '^src/' }, to: { path: '^(cli|bench|test)/' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
