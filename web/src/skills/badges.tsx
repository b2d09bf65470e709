/** Small visual markers of the Skills Editor. */

/** A skill status badge. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge-pill status-${status}`}>{status}</span>;
}

/** Tags as chips. */
export function Tags({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return <span className="muted">—</span>;
  return (
    <span className="tags">
      {tags.map((tag) => (
        <span key={tag} className="tag">
          {tag}
        </span>
      ))}
    </span>
  );
}
