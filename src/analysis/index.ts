// Public API of the analysis core: kernel log lines → XRUN events → ranked offenders.
export { createLogAnalyzer, analyzeText } from './analyzer.js';
export type { AnalyzerOptions, LogAnalyzer } from './analyzer.js';
export { createOffenderTally, rankOffenders, summarize } from './rank.js';
export { RULES_VERSION, loadRules, parseRuleList, parseRuleSet } from './rules.js';
export type { RuleSet, RuleList, RuleListName } from './rules.js';
export { classifyStack } from './classify.js';
export type { StackItem, Classification } from './classify.js';
export { renderTextReport, renderMarkdownReport } from './report.js';
export type {
  AnalysisResult,
  AnalysisSummary,
  DetectingTask,
  Detection,
  DetectionContext,
  DetectorOnlyCount,
  EventKind,
  Offender,
  OffenderClass,
  OffenderRank,
  XrunEvent,
  Frame,
  FrameContext,
} from './types.js';
