/**
 * The handle between the canvas and the node panel: drag it, or focus it and use the
 * arrow keys, to resize the panel. The width is kept in this browser.
 */
import { useEffect, useState, type PointerEvent } from 'react';

const KEY = 'org.panelWidth';
/** Narrowest and widest panel, in CSS pixels. */
export const PANEL_MIN = 320;
export const PANEL_MAX = 900;
const DEFAULT = 460;

/** The panel width (kept in localStorage) and its setter, clamped. */
export function usePanelWidth(): [number, (width: number) => void] {
  const [width, setWidth] = useState(() => {
    const stored = Number(localStorage.getItem(KEY));
    return Number.isFinite(stored) && stored > 0 ? clamp(stored) : DEFAULT;
  });
  useEffect(() => localStorage.setItem(KEY, String(width)), [width]);
  return [width, (next) => setWidth(clamp(next))];
}

function clamp(width: number): number {
  return Math.round(Math.min(PANEL_MAX, Math.max(PANEL_MIN, width, 0)));
}

/** A vertical separator that resizes the panel to its right. */
export function Splitter({ width, onResize }: { width: number; onResize: (width: number) => void }) {
  const [drag, setDrag] = useState<{ pointerId: number; startX: number; startWidth: number } | null>(null);
  return (
    <div
      className={drag ? 'splitter splitter-active' : 'splitter'}
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the node panel"
      aria-valuemin={PANEL_MIN}
      aria-valuemax={PANEL_MAX}
      aria-valuenow={width}
      tabIndex={0}
      onKeyDown={(event) => {
        const step = event.shiftKey ? 120 : 24;
        if (event.key === 'ArrowLeft') onResize(width + step);
        else if (event.key === 'ArrowRight') onResize(width - step);
        else return;
        event.preventDefault();
      }}
      onPointerDown={(event: PointerEvent<HTMLDivElement>) => {
        if (event.button !== 0) return;
        event.currentTarget.setPointerCapture(event.pointerId);
        setDrag({ pointerId: event.pointerId, startX: event.clientX, startWidth: width });
      }}
      onPointerMove={(event) => {
        if (drag?.pointerId === event.pointerId) onResize(drag.startWidth - (event.clientX - drag.startX));
      }}
      onPointerUp={() => setDrag(null)}
      onPointerCancel={() => setDrag(null)}
    />
  );
}
