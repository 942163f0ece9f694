// What bundle format v2 adds to an event and to the run: how the XRUN was detected
// (analysis/types.ts Detection) and the flight recorder's latency breakdown
// (recorder/breakdown-types.ts XrunBreakdown, recorder/breakdown-summary.ts BreakdownSummary),
// as TypeBox schemas. Plain data: the words are repeated here, not imported (a bundle must stay
// readable when the recorder changes); schema-breakdown.test.ts fails when they drift apart.
// Bounds: a breakdown keeps its MAX_PARTS largest parts, a stack MAX_STACK frames, a run at most
// MAX_BREAKDOWNS breakdowns (the recorder keeps fewer windows than that).
import { Type, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';

type Literals<T extends string[]> = { [K in keyof T]: TLiteral<T[K]> };

function oneOfWords<const T extends string[]>(values: T, description: string): TUnion<Literals<T>> {
  const members = values.map((v) => Type.Literal(v)) as unknown as Literals<T>;
  return Type.Union(members, { description }) as unknown as TUnion<Literals<T>>;
}

const text = (description: string, maxLength: number) => Type.String({ maxLength, description });
const opt = <T extends TSchema>(s: T) => Type.Optional(s);

/** The most parts one breakdown keeps (the largest; smaller ones are dropped). */
export const MAX_PARTS = 24;
/** The most frames a blocker's stack keeps (innermost first). */
export const MAX_STACK = 64;
/** The most breakdowns one bundle carries (events and unmatched together). */
export const MAX_BREAKDOWNS = 1024;
/** The most blockers the run's summary ranks. */
export const MAX_BLOCKERS = 32;
/** How far the parts may add up beyond the lateness (rounding, nested handlers): 5 %. */
export const SUM_TOLERANCE = 0.05;

export const DetectionContextSchema = oneOfWords(
  ['hardirq', 'irq-thread', 'softirq', 'process', 'unknown'],
  'Where the code that noticed the XRUN ran.',
);

export const BundleDetectionSchema = Type.Object(
  {
    context: DetectionContextSchema,
    task: opt(
      Type.Object({
        comm: text('Task name as the log printed it.', 64),
        pid: Type.Integer({ minimum: 0 }),
      }),
    ),
    via: opt(text('The frame that shows the context, e.g. "irq_forced_thread_fn".', 256)),
    evidence: oneOfWords(
      ['stack', 'flags', 'none'],
      'Read from the stack, from the ftrace flags column, or unknown.',
    ),
  },
  { description: 'How and by whom the XRUN was noticed (format 2).' },
);

export const DetectionShapeSchema = oneOfWords(
  ['hardirq', 'irq-thread', 'softirq', 'process'],
  'How the kernel came to detect the XRUN (recorder).',
);

export const BreakdownPartKindSchema = oneOfWords(
  ['irq-latency', 'irq', 'softirq', 'task', 'idle-exit', 'own-run', 'sleep', 'unexplained'],
  'What took this share of the lateness.',
);

export const BreakdownClassSchema = oneOfWords(
  ['irq-latency', 'blocked-by-task', 'interference', 'woken-late', 'application-late'],
  'The verdict of one breakdown (its largest part decides it).',
);

const stack = Type.Array(text('Kernel frame.', 512), {
  maxItems: MAX_STACK,
  description: 'Kernel stack, innermost first.',
});

export const BundleBreakdownPartSchema = Type.Object({
  kind: BreakdownPartKindSchema,
  name: text('Handler, softirq vector, task comm or a plain label.', 256),
  pid: opt(Type.Integer({ minimum: -1 })),
  prio: opt(
    Type.Integer({ description: 'Kernel priority as ftrace prints it (< 100: real-time).' }),
  ),
  cpu: opt(Type.Integer({ minimum: 0 })),
  ms: Type.Number({ minimum: 0, description: 'Net milliseconds (never negative).' }),
  share: Type.Number({ minimum: 0, description: 'ms / lateness.' }),
  stack: opt(stack),
});

export const BundleBreakdownSchema = Type.Object(
  {
    ts: Type.Number({ description: 'Trace-clock (CLOCK_MONOTONIC) seconds of the recorder hit.' }),
    shape: DetectionShapeSchema,
    detector: Type.Object({
      comm: text('Detecting task.', 64),
      pid: Type.Integer({ minimum: -1 }),
      cpu: Type.Integer({ minimum: 0 }),
    }),
    late: Type.Object({
      comm: text('The thread whose lateness caused the XRUN.', 64),
      pid: Type.Integer({ minimum: -1 }),
      role: oneOfWords(['irq-thread', 'softirq-thread', 'writer', 'detector'], 'Its role.'),
    }),
    dueTs: Type.Number({ description: 'When the late thread should have run (trace clock, s).' }),
    latenessMs: Type.Number({ minimum: 0 }),
    parts: Type.Array(BundleBreakdownPartSchema, {
      maxItems: MAX_PARTS,
      description: `Net parts, largest first; they add up to at most latenessMs + ${SUM_TOLERANCE * 100} %.`,
    }),
    cls: BreakdownClassSchema,
    summary: text('The top part said plainly.', 1024),
    complete: Type.Boolean({ description: 'False when events were missing.' }),
    missing: opt(text('What was missing when not complete.', 1024)),
    ownSleep: opt(
      Type.Object(
        {
          ms: Type.Number({ minimum: 0, description: 'The sleep as the kernel timed it (ms).' }),
          wokenBy: text('The timer that woke it (`hrtimer_wakeup`).', 128),
          wokeAfterHit: Type.Boolean(),
          askedMs: opt(Type.Number({ minimum: 0, description: 'The length it asked for (ms).' })),
          timerLateMs: opt(
            Type.Number({ minimum: 0, description: 'How late its own timer expired (ms).' }),
          ),
        },
        {
          description:
            'Class application-late: the writer slept in its own code, woken by its own timer.',
        },
      ),
    ),
  },
  { description: 'The flight recorder latency breakdown of one XRUN (format 2).' },
);

const count = () => opt(Type.Integer({ minimum: 0 }));

export const BundleClassCountsSchema = Type.Object(
  {
    'irq-latency': count(),
    'blocked-by-task': count(),
    interference: count(),
    'woken-late': count(),
    'application-late': count(),
  },
  { description: 'Breakdowns per class.' },
);

export const BundleShapeCountsSchema = Type.Object(
  { hardirq: count(), 'irq-thread': count(), softirq: count(), process: count() },
  { description: 'Breakdowns per detection shape.' },
);

export const BundleBlockerSchema = Type.Object({
  kind: BreakdownPartKindSchema,
  name: text('Task comm, handler, softirq vector or interrupted function.', 256),
  prio: opt(Type.Integer()),
  totalMs: Type.Number({ minimum: 0 }),
  share: Type.Number({ minimum: 0 }),
  count: Type.Integer({ minimum: 0 }),
  topCount: Type.Integer({ minimum: 0 }),
  stack: opt(stack),
});

export const BundleRunBreakdownSchema = Type.Object(
  {
    xruns: Type.Integer({ minimum: 0, description: 'Breakdowns the recorder produced.' }),
    complete: Type.Integer({ minimum: 0 }),
    completeShare: Type.Number({ minimum: 0, maximum: 1 }),
    byClass: BundleClassCountsSchema,
    byShape: BundleShapeCountsSchema,
    totalLatenessMs: Type.Number({ minimum: 0 }),
    meanLatenessMs: Type.Number({ minimum: 0 }),
    blockers: Type.Array(BundleBlockerSchema, {
      maxItems: MAX_BLOCKERS,
      description: 'Blockers by net time over all breakdowns.',
    }),
    unreadable: Type.Integer({ minimum: 0, description: 'Kept windows whose hit was not found.' }),
    unmatched: Type.Array(BundleBreakdownSchema, {
      maxItems: MAX_BREAKDOWNS,
      description: 'Breakdowns no kernel event of `events` matched (e.g. --capture none).',
    }),
  },
  { description: "The run's flight recorder summary (format 2)." },
);

export type BundleDetection = Static<typeof BundleDetectionSchema>;
export type BundleBreakdownPart = Static<typeof BundleBreakdownPartSchema>;
export type BundleBreakdown = Static<typeof BundleBreakdownSchema>;
export type BundleBreakdownClass = Static<typeof BreakdownClassSchema>;
export type BundleBlocker = Static<typeof BundleBlockerSchema>;
export type BundleRunBreakdown = Static<typeof BundleRunBreakdownSchema>;

/** The breakdown classes, in schema order (for the store, the CLI and the web filter). */
export const BREAKDOWN_CLASSES: readonly BundleBreakdownClass[] = BreakdownClassSchema.anyOf.map(
  (l) => l.const,
);
