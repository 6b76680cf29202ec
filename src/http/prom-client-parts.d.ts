// The four parts of prom-client that src/http/metrics.ts loads, by path: its index loads every part
// (default metrics, the push gateway, cluster aggregation, OpenTelemetry), 69 ms against 6 ms for
// these. The package has no `exports` map, so the paths are importable; their types are the index's.
declare module 'prom-client/lib/registry.js' {
  export { Registry as default } from 'prom-client';
}
declare module 'prom-client/lib/counter.js' {
  export { Counter as default } from 'prom-client';
}
declare module 'prom-client/lib/gauge.js' {
  export { Gauge as default } from 'prom-client';
}
declare module 'prom-client/lib/histogram.js' {
  export { Histogram as default } from 'prom-client';
}
