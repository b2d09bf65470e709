import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { SseReader } from './sse-frames.js';

/** A stream with every kind of frame: plain ones, and ones only the parser may read. */
const STREAM = [
  'data: {"type":"text","content":"a"}\n\n',
  'id: 12\ndata: {"type":"text","content":"b ✓"}\n\n',
  ': keepalive\n\n',
  'data: {"type":"text","content":"declined"}\n\n',
  'event: message\ndata: two\ndata: lines\n\n',
  'retry: 1000\n\n',
  'data:no space\n\n',
  'id: x1\ndata: {"type":"text","content":"c"}\n\n',
  'data: {"type":"text","content":"crlf"}\r\n\r\n',
  'data: {"type":"text","content":"after crlf"}\n\n',
  'data: d\r\n\r\ndata: e\n\n',
  'data: {"type":"text","content":"f"}\n\n',
  '\n',
  'data: {"type":"text","content":"after a lone blank line"}\n\n',
  'data: unfinished at the end',
].join('');

/** What the reader hands over, in order: `plain:` for what takeData took, `parsed:` for the parser's messages. */
function read(chunks: Buffer[], options: { stopOn?: string } = {}): string[] {
  const seen: string[] = [];
  const reader = new SseReader({
    takeData(bytes, start) {
      // Takes JSON objects, finding their end as a caller reading the value would.
      const end = bytes.indexOf(0x0a, start);
      if (end < 0 || end + 1 >= bytes.length) return 0;
      const value = bytes.toString('utf8', start, end);
      if (bytes[end + 1] !== 0x0a || !value.startsWith('{') || value.includes('declined') || value.includes('\r')) return -1;
      seen.push(`plain:${value}`);
      return end;
    },
    onMessage(message: EventSourceMessage) {
      seen.push(`parsed:${message.data}`);
      return message.data === options.stopOn;
    },
  });
  for (const chunk of chunks) reader.feed(chunk);
  reader.end();
  return seen;
}

/** The data of each message of eventsource-parser fed the whole stream at once. */
function parserAlone(text: string): string[] {
  const data: string[] = [];
  const parser = createParser({ onEvent: (message) => data.push(message.data) });
  parser.feed(text);
  parser.reset({ consume: false });
  return data;
}

describe('SseReader', () => {
  it('hands over what eventsource-parser alone would, plain frames as bytes, wherever the chunks split', () => {
    const bytes = Buffer.from(STREAM, 'utf8');
    const expected = parserAlone(STREAM);
    expect(expected).toHaveLength(12);
    const whole = read([bytes]);
    expect(whole.map((entry) => entry.replace(/^(plain|parsed):/, ''))).toEqual(expected);
    // Plain frames (an optional numeric id and one data line, LF only) come as bytes; from
    // the first frame with a CR on, the parser reads the rest of the chunk.
    expect(whole.filter((entry) => entry.startsWith('plain:'))).toEqual(['plain:{"type":"text","content":"a"}', 'plain:{"type":"text","content":"b ✓"}']);
    for (let cut = 1; cut < bytes.length; cut++) {
      const split = read([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(split.map((entry) => entry.replace(/^(plain|parsed):/, '')), `split at ${cut}`).toEqual(expected);
    }
    for (let cut = 1; cut + 7 < bytes.length; cut += 5) {
      const split = read([bytes.subarray(0, cut), bytes.subarray(cut, cut + 7), bytes.subarray(cut + 7)]);
      expect(split.map((entry) => entry.replace(/^(plain|parsed):/, ''))).toEqual(expected);
    }
    const byteByByte = read(Array.from(bytes, (byte) => Buffer.from([byte])));
    expect(byteByByte.map((entry) => entry.replace(/^(plain|parsed):/, ''))).toEqual(expected);
  });

  it('hands over nothing after a message asked to stop, plain frames of the same chunk included', () => {
    const text = 'data: {"type":"text","content":"a"}\n\ndata: stop\n\ndata: {"type":"text","content":"b"}\n\n';
    expect(read([Buffer.from(text)], { stopOn: 'stop' })).toEqual(['plain:{"type":"text","content":"a"}', 'parsed:stop']);
  });

  it('gives a frame longer than what it carries between chunks to the parser, then takes plain frames again', () => {
    const long = Buffer.from(`data: ${'x'.repeat(200_000)}\n\n`);
    const chunks: Buffer[] = [];
    for (let at = 0; at < long.length; at += 65_536) chunks.push(long.subarray(at, at + 65_536));
    chunks.push(Buffer.from('data: {"type":"text","content":"after"}\n\n'));
    const seen = read(chunks);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(`parsed:${'x'.repeat(200_000)}`);
    expect(seen[1]).toBe('plain:{"type":"text","content":"after"}');
  });

  it('keeps a character split between chunks whole on the parser path, and takes plain frames again after a CR frame', () => {
    const crFrame = Buffer.from('data: é\r\n\r\n');
    const cut = crFrame.indexOf(0xc3) + 1;
    const chunks = [crFrame.subarray(0, cut), crFrame.subarray(cut), Buffer.from('data: {"type":"text","content":"ü"}\n\n')];
    expect(read(chunks)).toEqual(['parsed:é', 'plain:{"type":"text","content":"ü"}']);
  });
});
