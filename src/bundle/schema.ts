// The bundle: one versioned JSON document a session (or watch / analyze) writes and a
// kernel developer collects from many machines. This file is its ONE source: the TypeBox
// schemas below give the TypeScript types (Static), the walker in validate.ts checks and
// rebuilds bundles from them, and scripts/gen-schema.mjs emits schema/bundle-v2.schema.json
// (published, served at GET /schema) from them. Plain data, no imports from analysis/ (a
// bundle must stay readable when the analyzer changes). Property order here IS the order of
// a validated bundle's JSON text, which the content hash covers: never reorder.
// Any change that is not a pure addition of an optional field bumps FORMAT_VERSION and adds
// a step to upgrade.ts. Field documentation: the descriptions here and docs/aggregate.md.
import { Type, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import {
  BundleBreakdownSchema,
  BundleDetectionSchema,
  BundleRunBreakdownSchema,
} from './schema-breakdown.js';

/** The format version this build writes; readers accept 0..FORMAT_VERSION. */
export const FORMAT_VERSION = 2 as const;

type Literals<T extends string[]> = { [K in keyof T]: TLiteral<T[K]> };

// A closed set of words as a union of literals (JSON Schema anyOf of const).
function oneOfWords<const T extends string[]>(values: T, description: string): TUnion<Literals<T>> {
  const members = values.map((v) => Type.Literal(v)) as unknown as Literals<T>;
  return Type.Union(members, { description }) as unknown as TUnion<Literals<T>>;
}

const nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description });

/** The longest text field a bundle may carry unless a field says less. */
export const MAX_TEXT = 4096;
const text = (description: string, maxLength = MAX_TEXT) => Type.String({ maxLength, description });

export const BundleKindSchema = oneOfWords(
  ['session', 'watch', 'analyze', 'try'],
  'What produced the bundle.',
);
export const PreemptModelSchema = oneOfWords(
  ['none', 'voluntary', 'full', 'rt', 'unknown'],
  'Kernel preemption model (from uname -v / config).',
);
export const CaptureBackendSchema = oneOfWords(
  ['xrun_debug', 'kprobe', 'tracepoint', 'none'],
  'How kernel-side xrun information was captured.',
);
export const KernelLogSourceSchema = oneOfWords(
  ['kmsg', 'journalctl', 'dmesg', 'trace_pipe', 'file', 'none'],
  "Where the kernel log came from ('file' for analyze of a saved log).",
);
export const BundleEventKindSchema = oneOfWords(
  ['xrun', 'hw_ptr_error', 'invalid_position'],
  'Kernel event kind, as in `analyze --json`.',
);
export const BundleOffenderClassSchema = oneOfWords(
  ['kernel', 'idle', 'user', 'none', 'detector-only'],
  "Offender class: only 'kernel' is ranked as code to fix; 'detector-only' (format 2): the stack is the detecting task's own and names no culprit.",
);

export type BundleKind = Static<typeof BundleKindSchema>;
export type PreemptModel = Static<typeof PreemptModelSchema>;
export type CaptureBackend = Static<typeof CaptureBackendSchema>;
export type KernelLogSource = Static<typeof KernelLogSourceSchema>;
export type BundleEventKind = Static<typeof BundleEventKindSchema>;
export type BundleOffenderClass = Static<typeof BundleOffenderClassSchema>;

const words = <T extends string>(u: { anyOf: TLiteral<T>[] }): readonly T[] =>
  u.anyOf.map((l) => l.const);
export const BUNDLE_KINDS: readonly BundleKind[] = words(BundleKindSchema);
export const PREEMPT_MODELS: readonly PreemptModel[] = words(PreemptModelSchema);
export const CAPTURE_BACKENDS: readonly CaptureBackend[] = words(CaptureBackendSchema);
export const KERNEL_LOG_SOURCES: readonly KernelLogSource[] = words(KernelLogSourceSchema);
export const BUNDLE_EVENT_KINDS: readonly BundleEventKind[] = words(BundleEventKindSchema);
export const BUNDLE_OFFENDER_CLASSES: readonly BundleOffenderClass[] =
  words(BundleOffenderClassSchema);

export const BundleToolSchema = Type.Object({
  name: Type.Literal('xrunhunt'),
  version: text('xrunhunt version that wrote the bundle.', 64),
});

export const BundleCardSchema = Type.Object({
  index: Type.Integer({ minimum: 0, description: 'ALSA card index.' }),
  id: text('ALSA card id.'),
  driver: text('Kernel driver, e.g. "snd_hda_intel".'),
  name: text('Card name.'),
});

export const BundleHostSchema = Type.Object({
  kernelRelease: text('`uname -r`, e.g. "6.1.0-28-amd64".', 256),
  kernelVersion: text(
    '`uname -v`, e.g. "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)".',
    512,
  ),
  arch: text('Machine architecture (`uname -m`).', 64),
  preempt: PreemptModelSchema,
  hz: nullable(Type.Integer({ minimum: 0 }), 'CONFIG_HZ when known.'),
  configFlags: Type.Record(Type.String(), Type.Boolean(), {
    description:
      'Kernel config options that matter (SND_DEBUG, SND_PCM_XRUN_DEBUG, ...): true = y/m. Keys sorted in a validated bundle.',
  }),
  cards: Type.Array(BundleCardSchema),
  cpus: Type.Integer({ minimum: 0 }),
  memBytes: Type.Number({ minimum: 0 }),
  threadirqs: Type.Boolean({ description: 'Whether the kernel runs with threadirqs.' }),
});

export const BundleParamsSchema = Type.Object({
  device: text('ALSA device played to.'),
  rateHz: Type.Integer({ minimum: 1 }),
  channels: Type.Integer({ minimum: 1 }),
  format: text('Sample format, e.g. "S16_LE".'),
  periodFrames: Type.Integer({ minimum: 1 }),
  bufferFrames: Type.Integer({ minimum: 1 }),
  rtPolicy: text("'SCHED_FIFO', 'SCHED_OTHER', ..."),
  rtPriority: nullable(Type.Integer({ minimum: 0 })),
  mask: nullable(
    Type.Integer({ minimum: 0 }),
    'xrun_debug mask applied, null when xrun_debug was unavailable.',
  ),
  phases: text('The phase plan as given, e.g. "idle:10s,write:30s".'),
  captureBackend: CaptureBackendSchema,
});

export const BundleThroughputSchema = Type.Object({
  bytes: Type.Number({ minimum: 0 }),
  mbPerSec: Type.Number({ minimum: 0 }),
  ops: Type.Optional(Type.Number({ minimum: 0 })),
  opsPerSec: Type.Optional(Type.Number({ minimum: 0 })),
});

export const BundlePhaseSchema = Type.Object({
  name: text('Phase name from the plan.'),
  kind: text("Load kind: 'idle', 'write', 'metadata', 'pagecache', 'fork', ..."),
  startMs: Type.Number({ minimum: 0, description: 'Milliseconds since session start.' }),
  endMs: Type.Number({ minimum: 0, description: 'Milliseconds since session start; ≥ startMs.' }),
  throughput: nullable(BundleThroughputSchema),
  xruns: Type.Integer({ minimum: 0 }),
});

export const BundleXrunSchema = Type.Object(
  {
    timeMs: Type.Number({ minimum: 0, description: 'Milliseconds since session start.' }),
    durationMs: nullable(
      Type.Number({ minimum: 0 }),
      'How long the stream was stopped (recovery), null if unknown.',
    ),
    phase: nullable(text('Phase name.')),
    kernelEventIndex: nullable(
      Type.Integer({ minimum: 0 }),
      'Index into `events` of the matched kernel event, null when unmatched.',
    ),
    monotonicNs: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { description: 'A userspace xrun (-EPIPE seen by the playback engine).' },
);

export const BundleKernelCaptureSchema = Type.Object({
  source: KernelLogSourceSchema,
  lostMessages: Type.Integer({ minimum: 0 }),
});

export const BundleEventOffenderSchema = Type.Object({
  class: BundleOffenderClassSchema,
  function: nullable(text('Offending function.')),
  module: nullable(text('Module of the offending function, null for built-in code.')),
  signature: nullable(text('Signature the rules gave the stack.')),
});

export const BundleEventSchema = Type.Object(
  {
    kind: BundleEventKindSchema,
    pcm: nullable(text('PCM, e.g. "pcmC0D0p".'), 'null when the header did not say.'),
    time: nullable(Type.Number(), 'Kernel timestamp in seconds, null when the log had none.'),
    phase: nullable(text('Phase name.')),
    offender: BundleEventOffenderSchema,
    frames: Type.Array(Type.String(), {
      description:
        'Normalised frames, innermost first: "func" or "func [module]", offsets stripped.',
    }),
    detection: Type.Optional(BundleDetectionSchema),
    breakdown: Type.Optional(BundleBreakdownSchema),
  },
  { description: 'A kernel event with its normalised stack (the input of re-signing).' },
);

export const BundleOffenderRankSchema = Type.Object({
  function: nullable(text('Offending function.')),
  module: nullable(text('Module, null for built-in code.')),
  signature: text('Signature of the offender.'),
  count: Type.Integer({ minimum: 0 }),
  share: Type.Number({ minimum: 0, maximum: 1, description: 'count / all kernel events, 0..1.' }),
});

export const LatencySummarySchema = Type.Object(
  {
    min: Type.Number(),
    p50: Type.Number(),
    p99: Type.Number(),
    p999: Type.Number(),
    max: Type.Number(),
    count: Type.Integer({ minimum: 0 }),
  },
  { description: 'Latency summary in microseconds.' },
);

export const BundleHistogramsSchema = Type.Object({
  headroomUs: Type.Composite([LatencySummarySchema], {
    description: 'Headroom: buffer fill left when the writer woke, in µs.',
  }),
  writeUs: Type.Composite([LatencySummarySchema], {
    description: 'Duration of one write call, in µs.',
  }),
});

export const BundleTryArmSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 0 }),
    minutes: Type.Number({ minimum: 0 }),
  },
  { description: "One arm's xruns of a `try` comparison: count over minutes." },
);

export const BundleTryRateSchema = Type.Object(
  {
    a: BundleTryArmSchema,
    b: BundleTryArmSchema,
    ratio: nullable(Type.Number({ minimum: 0 }), 'null: no xrun in either arm.'),
    low: Type.Number({ minimum: 0 }),
    high: nullable(Type.Number({ minimum: 0 }), 'null: unbounded (A had no xrun).'),
    p: Type.Number({ minimum: 0 }),
    significant: Type.Boolean(),
  },
  {
    description: "One rate comparison of a `try` run: B's xrun rate over A's, exact 95 % interval.",
  },
);

export const BundleTrySchema = Type.Object(
  {
    knobs: Type.Array(
      Type.Object({
        spec: text('The knob as given, e.g. vm.dirty_bytes=67108864.'),
        what: text('What the knob is.'),
        from: text('Value in A (the current setting).'),
        to: text('Value in B.'),
      }),
    ),
    rounds: Type.Integer({ minimum: 0 }),
    phases: Type.Array(
      Type.Composite([Type.Object({ name: text('Phase name.') }), BundleTryRateSchema]),
    ),
    total: nullable(BundleTryRateSchema),
    topOffender: nullable(
      Type.Object({
        name: text('Top offender of A.'),
        a: Type.Integer({ minimum: 0 }),
        b: Type.Integer({ minimum: 0 }),
        rate: BundleTryRateSchema,
      }),
    ),
    verdict: text('The verdict in words.', 4000),
  },
  {
    description: 'What a bundle of kind `try` adds: the knobs changed in B and the A/B comparison.',
  },
);

/** The pattern a machine id must match (see machine-id.ts). */
export const MACHINE_ID_PATTERN = '^[A-Za-z0-9_-]{1,128}$';

export const BundleSchema = Type.Object(
  {
    formatVersion: Type.Literal(FORMAT_VERSION),
    tool: BundleToolSchema,
    kind: BundleKindSchema,
    createdAt: text('ISO 8601 timestamp.', 64),
    machineId: Type.String({
      maxLength: 128,
      pattern: MACHINE_ID_PATTERN,
      description:
        'Anonymous random per-install id (see machine-id.ts); never derived from hardware.',
    }),
    scrubbed: Type.Boolean({
      description: 'Whether hostnames, user names, home paths and addresses were replaced.',
    }),
    host: BundleHostSchema,
    params: nullable(
      BundleParamsSchema,
      'Session parameters; null for bundles made by `analyze` from a saved log.',
    ),
    durationMs: Type.Number({ minimum: 0 }),
    playbackMs: Type.Number({
      minimum: 0,
      description: 'Time audio actually played (the denominator of incidents per machine-hour).',
    }),
    phases: Type.Array(BundlePhaseSchema),
    xruns: Type.Array(BundleXrunSchema),
    kernelCapture: BundleKernelCaptureSchema,
    events: Type.Array(BundleEventSchema),
    offenders: Type.Array(BundleOffenderRankSchema),
    histograms: nullable(BundleHistogramsSchema),
    rulesVersion: text('Version of the signature rules that produced offender signatures.', 64),
    warnings: Type.Array(Type.String()),
    try: Type.Optional(BundleTrySchema),
    breakdown: Type.Optional(BundleRunBreakdownSchema),
  },
  {
    $id: 'https://xrunhunt.invalid/schema/bundle-v2.schema.json',
    title: 'xrunhunt bundle, format version 2',
    description:
      "One session, watch or analyze result of xrunhunt. Readers ignore unknown properties. Rules JSON Schema cannot say, checked by xrunhunt: createdAt parses as a date, phases[].endMs ≥ startMs, xruns[].kernelEventIndex < events.length, a breakdown's parts add up to at most its latenessMs + 5 %, at most 1024 breakdowns per bundle.",
  },
);

export type BundleTool = Static<typeof BundleToolSchema>;
export type BundleCard = Static<typeof BundleCardSchema>;
export type BundleHost = Static<typeof BundleHostSchema>;
export type BundleParams = Static<typeof BundleParamsSchema>;
export type BundleThroughput = Static<typeof BundleThroughputSchema>;
export type BundlePhase = Static<typeof BundlePhaseSchema>;
export type BundleXrun = Static<typeof BundleXrunSchema>;
export type BundleKernelCapture = Static<typeof BundleKernelCaptureSchema>;
export type BundleEventOffender = Static<typeof BundleEventOffenderSchema>;
export type BundleEvent = Static<typeof BundleEventSchema>;
export type BundleOffenderRank = Static<typeof BundleOffenderRankSchema>;
export type LatencySummary = Static<typeof LatencySummarySchema>;
export type BundleHistograms = Static<typeof BundleHistogramsSchema>;
export type BundleTryArm = Static<typeof BundleTryArmSchema>;
export type BundleTryRate = Static<typeof BundleTryRateSchema>;
export type BundleTry = Static<typeof BundleTrySchema>;
/** Bundle format version 2 (what validateBundle returns for any version read). */
export type Bundle = Static<typeof BundleSchema>;
