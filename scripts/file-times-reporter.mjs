// A node:test reporter for the runner's src/ batches (scripts/run-tests.mjs): one JSON line per
// top-level test with its file and duration, so the runner can sum each file's time inside a
// batch process and balance the next run's batches by time instead of by file count.
export default async function* fileTimesReporter(source) {
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0)
      yield `${JSON.stringify({ file: event.data.file ?? null, ms: event.data.details?.duration_ms ?? 0 })}\n`;
  }
}
