// A search box's text, committed (to the URL, hence the query) once typing pauses, so
// the server is asked once per pause rather than once per key.
import { useEffect, useState } from 'react';

export const SEARCH_PAUSE_MS = 300;

/** The box's text and its setter; `commit` runs with the text after a pause in typing. */
export function useSearchDraft(current: string | undefined, commit: (text: string) => void): [string, (text: string) => void] {
  const [draft, setDraft] = useState(current ?? '');
  useEffect(() => {
    if (draft === (current ?? '')) return;
    const timer = setTimeout(() => commit(draft), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [draft, current, commit]);
  return [draft, setDraft];
}
