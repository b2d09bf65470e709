/**
 * The central directory of a zip, read only for what fflate does not report: how many
 * entries the archive declares, and which entries are symbolic links (a Unix mode in the
 * external attributes). Nothing here inflates or trusts a size; the entries themselves
 * are read by fflate's streaming inflater (see `zip.ts`).
 */

/** End of central directory record signature, and its fixed size. */
const EOCD = 0x06054b50;
const EOCD_SIZE = 22;
/** Central directory file header signature, and its fixed size. */
const CDFH = 0x02014b50;
const CDFH_SIZE = 46;
/** A zip comment is at most this long, so the end record is within the last 64 KiB. */
const MAX_COMMENT = 0xffff;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
/** The "made by" host of a Unix archiver, whose external attributes carry a mode. */
const UNIX = 3;

/** What the central directory declares. */
export interface ZipDirectory {
  /** Entries declared (the end record's count; 0xffff in a zip64 archive means "see zip64"). */
  declared: number;
  /** Names of the entries that are symbolic links. */
  links: Set<string>;
}

/** The central directory of `bytes`, or undefined when it has no end record (not a zip). */
export function readZipDirectory(bytes: Uint8Array): ZipDirectory | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const floor = Math.max(0, bytes.length - EOCD_SIZE - MAX_COMMENT);
  let end = -1;
  for (let at = bytes.length - EOCD_SIZE; at >= floor; at--) {
    if (view.getUint32(at, true) === EOCD) {
      end = at;
      break;
    }
  }
  if (end < 0) return undefined;
  const declared = view.getUint16(end + 10, true);
  const size = view.getUint32(end + 12, true);
  const offset = view.getUint32(end + 16, true);
  const links = new Set<string>();
  const decoder = new TextDecoder();
  let at = offset;
  const stop = Math.min(bytes.length, offset + size);
  while (at + CDFH_SIZE <= stop && view.getUint32(at, true) === CDFH) {
    const host = view.getUint8(at + 5);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const mode = view.getUint32(at + 38, true) >>> 16;
    if (host === UNIX && (mode & S_IFMT) === S_IFLNK) links.add(decoder.decode(bytes.subarray(at + CDFH_SIZE, at + CDFH_SIZE + nameLength)));
    at += CDFH_SIZE + nameLength + extraLength + commentLength;
  }
  return { declared, links };
}
