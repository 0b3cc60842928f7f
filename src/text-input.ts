import { usageError } from './errors.js';

/** Reads a stream but stops one chunk past the limit, so an endless pipe cannot exhaust memory. */
export async function readBounded(stream: NodeJS.ReadableStream, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(buf);
    size += buf.length;
    if (size > maxBytes) break;
  }
  return Buffer.concat(chunks);
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A document's bytes as text, for refine and scan alike: NUL bytes and invalid UTF-8 are
 * usage errors naming `label`. A BOM is kept (the scanner reads past it; refine restores it).
 */
export function decodeText(bytes: Uint8Array, label: string): string {
  if (bytes.includes(0)) throw usageError(`${label} looks binary (it contains NUL bytes)`, 'give bounce a text file', 'input');
  try {
    return decoder.decode(bytes);
  } catch {
    throw usageError(`${label} is not valid UTF-8`, 'convert it to UTF-8 (e.g. iconv -t UTF-8) and try again', 'input');
  }
}
