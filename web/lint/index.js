// The parser and plugin of the root eslint.config.js, resolved from this package, where
// TypeScript 5 sits beside them (the root's TypeScript 7 has no compiler API to parse with).
export { default as tsParser } from '@typescript-eslint/parser';
export { default as importX, createNodeResolver } from 'eslint-plugin-import-x';
