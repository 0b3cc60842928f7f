import { renderCodeQuality } from './codequality.js';
import type { Format, Report } from './finding.js';
import { renderGithub } from './github.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderRdjson, renderRdjsonl } from './rdjson.js';
import { renderSarif } from './sarif.js';
import { renderText } from './text.js';

const RENDERERS: Record<Format, (report: Report) => string> = {
  text: renderText,
  json: renderJson,
  github: renderGithub,
  sarif: renderSarif,
  codequality: renderCodeQuality,
  junit: renderJunit,
  rdjsonl: renderRdjsonl,
  rdjson: renderRdjson,
};

export function render(format: Format, report: Report): string {
  return RENDERERS[format](report);
}
