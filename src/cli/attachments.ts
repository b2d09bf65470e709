/** Files attached to chat messages (`--attach PATH`, `/attach PATH`): checked, read, base64-encoded. */
import { readFile, stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import type { OutgoingAttachment } from '../client/types.js';
import { invalid } from '../core/errors.js';

/** Largest attachment the server takes (10 MiB decoded, API.md §6). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** Most attachments on one message. */
export const MAX_ATTACHMENTS = 10;

const TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/** The content type of a file name (by extension; `application/octet-stream` otherwise). */
export function contentTypeOf(name: string): string {
  return TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** Checks that `path` is a readable file within the size limit; returns its name, absolute path and size. */
export async function checkAttachment(path: string, cwd: string): Promise<{ name: string; path: string; size: number }> {
  const absolute = resolve(cwd, path.replace(/^~(?=\/)/, process.env.HOME ?? '~'));
  let size: number;
  try {
    const info = await stat(absolute);
    if (!info.isFile()) throw invalid(`${path} is not a file`);
    size = info.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw invalid(`no such file: ${path}`);
    throw error;
  }
  if (size > MAX_ATTACHMENT_BYTES) throw invalid(`${path} is larger than 10 MiB`);
  return { name: basename(absolute), path: absolute, size };
}

/** Reads attachments for sending. */
export async function encodeAttachments(files: readonly { name: string; path: string }[]): Promise<OutgoingAttachment[]> {
  if (files.length > MAX_ATTACHMENTS) throw invalid(`at most ${MAX_ATTACHMENTS} attachments per message`);
  return Promise.all(
    files.map(async (file) => ({ name: file.name, content_base64: (await readFile(file.path)).toString('base64'), content_type: contentTypeOf(file.name) })),
  );
}
