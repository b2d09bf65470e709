/**
 * Markdown loaded on first use: the markdown libraries are a chunk of their own, so the
 * pages that show no markdown (and the first paint of every page) do not wait for them.
 * Until the chunk is there the text shows as it was written.
 */
import { lazy, Suspense, type ComponentProps } from 'react';

const Loaded = lazy(() => import('./Gfm'));

/** Renders markdown text (see `Gfm`); plain text until the renderer has loaded. */
export function Gfm(props: ComponentProps<typeof Loaded>) {
  return (
    <Suspense
      fallback={
        <div className={props.className}>
          <p className="md-plain">{props.children}</p>
        </div>
      }
    >
      <Loaded {...props} />
    </Suspense>
  );
}
