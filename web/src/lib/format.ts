// How the app writes the API's values for a person to read.

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A date of the API as the person reads it. */
export const shownDate = (iso: string) => dateFormat.format(new Date(iso));
