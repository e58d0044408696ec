// A file's name (docs/decisions.md, "Files: names"). The name is what the person typed, and
// the API shows it so; it is never a path (objects are named by their hash), so `../`, `/`,
// `\`, right-to-left marks and any other character are kept as typed. Refused (400): an
// empty name, one longer than NAME_MAX characters, and control characters (NUL and the rest
// of C0, DEL): PostgreSQL text cannot hold NUL, and no person types the others. Only the
// name offered with a download (Content-Disposition) is made safe for a disk: see
// downloadName.

/** The longest name kept, in characters (code points). */
export const NAME_MAX = 1000;

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a typed name is refused, or null when it is kept as typed. */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return 'The file name may not be blank.';
  if ([...name].length > NAME_MAX) return `Ensure the file name has no more than ${NAME_MAX} characters.`;
  if (CONTROL.test(name)) {
    return name.includes('\u0000') ? 'Null characters are not allowed in a file name.' : 'Control characters are not allowed in a file name.';
  }
  if (/[\ud800-\udfff]/u.test(name)) return 'The file name is not valid Unicode.';
  return null;
}

// Bidirectional controls (they can turn "report‮fdp.exe" into what reads as "reportexe.pdf"),
// C0/C1 controls, and the path separators browsers would swap anyway.
const UNSAFE_ON_DISK = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069/\\]/g;

/**
 * The name offered for saving a download: the typed name without bidirectional and control
 * characters, path separators as "_", leading dots dropped (no hidden or "..": files),
 * and at most 200 characters (keeping the extension), so every disk takes it.
 */
export function downloadName(name: string): string {
  let safe = name.replace(UNSAFE_ON_DISK, (c) => (c === '/' || c === '\\' ? '_' : '')).replace(/^[.\s]+/, '').trim();
  const chars = [...safe];
  if (chars.length > 200) {
    const dot = safe.lastIndexOf('.');
    const ext = dot > 0 && safe.length - dot <= 16 ? [...safe.slice(dot)] : [];
    safe = [...chars.slice(0, 200 - ext.length), ...ext].join('');
  }
  return safe || 'file';
}
