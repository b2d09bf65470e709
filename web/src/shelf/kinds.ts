/** How an artifact can be previewed, from its content type and name. Pure. */
import type { ArtifactInfo } from '../api/types';

/** An artifact on a node's shelf, with the run that stored it (the core's record). */
export type Artifact = ArtifactInfo;

/** How the shelf shows a file: rendered markdown, plain text, an image, or only a download link. */
export type PreviewKind = 'markdown' | 'text' | 'image' | 'none';

/** Text previews show at most this much of a file. */
export const PREVIEW_MAX_BYTES = 512 * 1024;

const IMAGE = /^image\/(png|jpe?g|gif|webp|avif|bmp|svg\+xml)$/;
const TEXT_TYPES = /^(text\/.+|application\/(json|xml|x-yaml|yaml|csv|x-ndjson)|.+\+(json|xml))$/;
const TEXT_NAMES = /\.(txt|log|csv|tsv|json|ya?ml|xml|ini|toml|ts|js|py|sh|sql|html|css)$/i;

/** Which preview fits an artifact. */
export function previewKind(artifact: Pick<Artifact, 'name' | 'content_type'>): PreviewKind {
  const type = artifact.content_type.split(';')[0]!.trim().toLowerCase();
  if (type === 'text/markdown' || /\.(md|markdown)$/i.test(artifact.name)) return 'markdown';
  if (IMAGE.test(type)) return 'image';
  if (TEXT_TYPES.test(type) || (type === 'application/octet-stream' && TEXT_NAMES.test(artifact.name))) return 'text';
  return 'none';
}

/** A short description of a content type for the list ("Markdown", "PNG image", …). */
export function typeLabel(contentType: string): string {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const known: Record<string, string> = {
    'text/markdown': 'Markdown',
    'text/plain': 'Text',
    'text/csv': 'CSV',
    'application/json': 'JSON',
    'application/pdf': 'PDF',
    'application/octet-stream': 'File',
  };
  if (known[type]) return known[type];
  const image = /^image\/(.+)$/.exec(type);
  if (image) return `${image[1]!.replace('+xml', '').toUpperCase()} image`;
  return type || 'File';
}
