import { z } from 'zod';
import { AgentOptionsSchema } from '../adapters/contract.js';
import { REPLY_DEFAULTS } from '../engine/reply.js';

/** One entry under `agents:` in bounce.config.yaml. */
export const AgentConfigSchema = AgentOptionsSchema.extend({
  adapter: z.string().min(1),
  timeout_s: z.number().positive().optional(),
}).strict();
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

const markerName = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'a marker is a word such as RISK (letters, digits, _ or -)');

export const ConfigSchema = z
  .object({
    reviewer: z.string().min(1).optional(),
    composer: z.string().min(1).optional(),
    agents: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'agent names use letters, digits, ".", "_" and "-"'), AgentConfigSchema).default({}),
    runs_dir: z.string().min(1).optional(),
    max_passes: z.number().int().min(1).max(100).default(10),
    max_bytes: z.number().int().positive().default(2_000_000),
    markers: z.array(markerName).default([]),
    /** A reply with fewer than this share of the sent document's words is a summary (repaired). */
    summary_ratio: z.number().gt(0).lt(1).default(REPLY_DEFAULTS.summaryRatio),
    /** The summary check applies only to documents with more words than this. */
    summary_min_words: z.number().int().nonnegative().default(REPLY_DEFAULTS.summaryMinWords),
  })
  .strict();
export type Config = z.infer<typeof ConfigSchema>;

export const DEFAULT_CONFIG: Config = ConfigSchema.parse({});
