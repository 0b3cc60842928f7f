#!/usr/bin/env node
// An adapter that answers at once (docs/adapter-contract.md): it sends back the document it
// was given, unchanged, so a `cmd:` run times bounce and one bare node process per call.
import { serve } from './bench-adapter.mjs';

await serve('instant-adapter 1.0.0', (_request, doc) => doc);
