/** What chunks share with the main script (chunks.ts SHARED, every name in order), as widget/build.ts provides it. */
declare module 'punchcard:shared' {
  const shared: unknown[];
  export default shared;
}
