// A row's size is written by records/ (records/size.ts); this name is kept for its callers.
export { rowSize, refuseOversize, checkRowSize, type RowSizeChange } from '../records/size.js';
