// A record opened as a page (issue 24): its uid, projects and cells, and its sections — the
// notebook pages — each edited in TipTap (ProseMirror). Saving a section is one version of
// the row; another person's saved section shows here as it happens (the row's live stream),
// unless this person has unsaved edits in it: then they are told, and keep theirs or take it.
import { Link } from '@tanstack/react-router';
import { EditorContent, useEditor, type JSONContent } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useEffect, useState, type FormEvent } from 'react';
import { Button, ErrorMessage, Loading, TextField } from '../../../components/ui';
import { liveStatusText, type RecordChange } from '../../../lib/api/record-stream';
import { useAddSection, useLiveRecord, useRecord, useSaveSection, type JsonValue, type Section } from '../api/record';

/** A section's content as TipTap takes it: its document, or a string (HTML or text), or an empty document. */
function toContent(data: unknown): JSONContent | string {
  if (typeof data === 'string') return data;
  if (data && typeof data === 'object' && (data as { type?: unknown }).type === 'doc') return data as JSONContent;
  return { type: 'doc', content: [{ type: 'paragraph' }] };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function SectionEditor({ section, rowSid }: { section: Section; rowSid: string }) {
  const save = useSaveSection(rowSid);
  const [dirty, setDirty] = useState(false);
  const [theirs, setTheirs] = useState<string | null>(null);
  const writable = section.change_permission && !section.is_archived;
  const editor = useEditor({
    extensions: [StarterKit],
    // TipTap would add its CSS as a <style> element, which the Content-Security-Policy refuses: styles.css has it.
    injectCSS: false,
    content: toContent(section.data),
    editable: writable,
    editorProps: {
      attributes: { 'aria-label': `Content of ${section.name}`, role: 'textbox', 'aria-multiline': 'true', class: 'section-editor' },
    },
    onUpdate: () => setDirty(true),
  });
  const saved = JSON.stringify(section.data);
  // The saved content changed (another person's save, or ours read back): shown at once, unless this person is editing.
  useEffect(() => {
    if (!editor || editor.isDestroyed) return;
    const shown = editor.getJSON();
    if (typeof section.data === 'object' && same(shown, section.data)) return;
    if (dirty) {
      setTheirs(section.updated_by || 'Someone');
      return;
    }
    editor.commands.setContent(toContent(section.data), { emitUpdate: false });
    // Only a new saved content resets the editor (`dirty` and `section` are read as they are then).
  }, [editor, saved]);

  const onSave = () => {
    if (!editor) return;
    // The document as JSON text read back: what the API stores (no undefined attributes).
    save.mutate({ sid: section.sid, data: JSON.parse(JSON.stringify(editor.getJSON())) as JsonValue }, {
      onSuccess: () => {
        setDirty(false);
        setTheirs(null);
      },
    });
  };
  const takeTheirs = () => {
    editor?.commands.setContent(toContent(section.data), { emitUpdate: false });
    setDirty(false);
    setTheirs(null);
  };

  return (
    <section className="panel" aria-labelledby={`section-${section.sid}`}>
      <h3 id={`section-${section.sid}`}>
        {section.order}. {section.name}
        {section.is_archived ? ' (archived)' : ''}
      </h3>
      {section.description && <p>{section.description}</p>}
      <EditorContent editor={editor} />
      {theirs && (
        <p role="alert">
          {theirs} saved this section meanwhile. <Button onClick={takeTheirs}>Show theirs</Button> or save yours over it.
        </p>
      )}
      <p>
        <Button
          variant="primary"
          onClick={onSave}
          disabled={!dirty || save.isPending}
          disabledReason={writable ? null : section.is_archived ? 'The section is archived.' : 'Your role may not change this record now.'}
        >
          Save {section.name}
        </Button>
        <span className="hint" aria-live="polite">
          {save.isPending ? ' Saving…' : dirty ? ' Unsaved changes.' : ` Version ${section.version}, by ${section.updated_by || 'someone'}.`}
        </span>
      </p>
      <ErrorMessage error={save.error} />
    </section>
  );
}

function describe(change: RecordChange | null): string | null {
  if (!change) return null;
  const who = change.by?.name ?? 'Someone';
  if (change.kind === 'cell') return `Version ${change.version}, just now: ${who} changed a cell.`;
  return `Version ${change.version}, just now: ${who} ${change.changes.includes('sections') ? 'changed the sections' : 'changed the record'}.`;
}

export function RecordPage({ orgSid, rowSid }: { orgSid: string; rowSid: string }) {
  const record = useRecord(rowSid);
  const live = useLiveRecord(rowSid, record.data?.table.sid ?? '');
  const add = useAddSection(orgSid, rowSid);
  const [name, setName] = useState('');

  if (record.isPending) return <Loading />;
  if (record.error) return <ErrorMessage error={record.error} />;
  const row = record.data;
  const onAdd = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    add.mutate(name, { onSuccess: () => setName('') });
  };

  return (
    <main className="wide">
      <h1>
        {row.name} <small>{row.uid}</small>
      </h1>
      <p>
        {row.table.name}, in {row.projects.map((p) => p.name).join(', ')}. Version {row.version}.{' '}
        <Link to="/o/$org/rows/$row" params={{ org: orgSid, row: rowSid }}>
          History
        </Link>
      </p>
      <p className="live-status" role="status">
        {describe(live.last) ?? liveStatusText(live.status)}
      </p>
      <section aria-labelledby="cells-heading" className="panel">
        <h2 id="cells-heading">Cells</h2>
        {row.column_set.length === 0 ? (
          <p>No cells yet.</p>
        ) : (
          <dl className="record-cells">
            {row.column_set.map((cell) => (
              <div key={cell.sid} className="record-cell">
                <dt>{cell.column.name}</dt>
                <dd>{cell.data}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      <section aria-labelledby="sections-heading">
        <h2 id="sections-heading">Sections</h2>
        {row.section_set.length === 0 && <p>No sections yet.</p>}
        {row.section_set.map((section) => (
          <SectionEditor key={section.sid} section={section} rowSid={rowSid} />
        ))}
        {row.change_permission && (
          <form onSubmit={onAdd} className="panel">
            <TextField label="New section's name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={255} />
            <Button type="submit" variant="primary" disabled={add.isPending || name.trim() === ''}>
              Add section
            </Button>
            <ErrorMessage error={add.error} />
          </form>
        )}
      </section>
    </main>
  );
}
