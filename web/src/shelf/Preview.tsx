/**
 * The preview of one artifact in a dialog: markdown rendered, text as it is (in a
 * focusable scroll box), images from a blob URL (fetched with the bearer, so nothing
 * is exposed at a URL of its own). Other types offer the download only.
 */
import { useEffect, useState } from 'react';
import { Dialog } from '../ui/Dialog';
import { formatSize } from '../ui/format';
import { Gfm } from '../ui/LazyGfm';
import { ErrorNote, Skeleton } from '../ui/Notice';
import type { ShelfApi } from './api';
import { PREVIEW_MAX_BYTES, previewKind, type Artifact } from './kinds';

type Loaded = { kind: 'text' | 'markdown'; text: string; cut: boolean } | { kind: 'image'; url: string } | { kind: 'none' };

/** Previews an artifact. */
export function Preview({ artifact, shelf, onClose }: { artifact: Artifact; shelf: ShelfApi; onClose: () => void }) {
  const kind = previewKind(artifact);
  const [loaded, setLoaded] = useState<Loaded | null>(kind === 'none' ? { kind: 'none' } : null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (kind === 'none') return;
    const controller = new AbortController();
    let url: string | undefined;
    shelf.blob(artifact.name, controller.signal).then(
      async (blob) => {
        if (kind === 'image') {
          url = URL.createObjectURL(blob);
          setLoaded({ kind: 'image', url });
          return;
        }
        const text = await blob.slice(0, PREVIEW_MAX_BYTES).text();
        setLoaded({ kind, text, cut: blob.size > PREVIEW_MAX_BYTES });
      },
      (failure: unknown) => {
        if (!controller.signal.aborted) setError(failure);
      },
    );
    return () => {
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [artifact.name, kind, shelf]);

  return (
    <Dialog title={artifact.name} onClose={onClose} wide>
      <p className="muted small">
        {artifact.content_type} · {formatSize(artifact.size)}
      </p>
      <ErrorNote error={error} />
      {!loaded && !error ? <Skeleton lines={6} label={`Loading ${artifact.name}`} /> : null}
      {loaded?.kind === 'markdown' ? (
        <div className="preview-box" tabIndex={0} role="region" aria-label={`Contents of ${artifact.name}`}>
          <Gfm className="markdown">{loaded.text}</Gfm>
        </div>
      ) : null}
      {loaded?.kind === 'text' ? (
        <pre className="preview-box preview-text" tabIndex={0} role="region" aria-label={`Contents of ${artifact.name}`}>
          {loaded.text}
        </pre>
      ) : null}
      {loaded && 'cut' in loaded && loaded.cut ? <p className="hint">Only the first {formatSize(PREVIEW_MAX_BYTES)} are shown; download the file for the rest.</p> : null}
      {loaded?.kind === 'image' ? <img className="preview-image" src={loaded.url} alt={`Preview of ${artifact.name}`} /> : null}
      {loaded?.kind === 'none' ? <p>There is no preview for this type of file; download it to open it.</p> : null}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
        <button type="button" className="btn btn-primary" onClick={() => void shelf.download(artifact.name).catch((failure: unknown) => setError(failure))}>
          Download
        </button>
      </div>
    </Dialog>
  );
}
