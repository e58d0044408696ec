// The difference between two versions' data ({name, description, is_locked, is_archived,
// cells: {column sid: data}}): one entry per field that changed.

export interface Change {
  field: string;
  label: string;
  kind: 'added' | 'removed' | 'changed';
  before: string;
  after: string;
}

function flatten(value: unknown, prefix: string, out: Map<string, string>) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
  } else {
    out.set(prefix, typeof value === 'string' ? value : JSON.stringify(value));
  }
}

/** The fields that differ between `older` and `newer`; cell fields named by their column. */
export function diffData(older: unknown, newer: unknown, columnNames: Map<string, string>): Change[] {
  const a = new Map<string, string>();
  const b = new Map<string, string>();
  flatten(older, '', a);
  flatten(newer, '', b);
  const label = (field: string) => {
    const cell = /^cells\.(.+)$/.exec(field);
    return cell ? `Cell ${columnNames.get(cell[1]) ?? cell[1]}` : field;
  };
  const changes: Change[] = [];
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    const before = a.get(field);
    const after = b.get(field);
    if (before === after) continue;
    changes.push({
      field,
      label: label(field),
      kind: before === undefined ? 'added' : after === undefined ? 'removed' : 'changed',
      before: before ?? '—',
      after: after ?? '—',
    });
  }
  return changes;
}
