/**
 * Local HTTP servers for trace tests: `listen` records what it is sent and answers as
 * told; `startOtlpReceiver` is an OTLP/HTTP (JSON) traces endpoint that keeps every
 * exported span and notifies waiters on each export.
 */
import { createServer, type Server } from 'node:http';
import { notifier, type Notifier } from './notifier.js';

/** One exported span, as OTLP/JSON carries it. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

/** Request headers as Node gives them. */
export type Headers = Record<string, string | string[] | undefined>;

/** A local HTTP server calling `handler` with each request's body and headers. */
export async function listen(handler: (body: string, headers: Headers, respond: (status: number, type: string, text: string) => void) => void) {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handler(Buffer.concat(chunks).toString('utf8'), request.headers, (status, type, text) => response.writeHead(status, { 'content-type': type }).end(text)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** An OTLP/HTTP traces receiver: `url` is its base (the traces path is `/v1/traces`). */
export async function startOtlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; exported: Notifier; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const exported = notifier();
  const server = await listen((body, headers, respond) => {
    if (!/application\/json/.test(String(headers['content-type']))) {
      respond(415, 'application/json', '{}');
      return;
    }
    const payload = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
    respond(200, 'application/json', '{}');
    exported.notify();
  });
  return { url: server.url, spans, exported, close: server.close };
}

/** The value of a span attribute (numbers as numbers). */
export function attributeOf(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
}
