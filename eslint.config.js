// ESLint holds the web app's import boundaries and nothing else (the compiler and the
// tests do the rest): bulletproof-react's rule that a feature never imports another
// feature (shared parts live in lib/ or components/, routes in app/ compose features),
// that code flows one way (shared → features → app), and that no module imports itself
// back through others. `npm run lint`; test/modules/lint.test.ts runs it in CI.
import { readdirSync } from 'node:fs';
import { createNodeResolver, importX, tsParser } from 'records-web-lint';

const src = './web/src';
const features = readdirSync(new URL('web/src/features/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

export default [
  {
    files: ['web/src/**/*.{ts,tsx}'],
    ignores: ['web/src/lib/api/schema.d.ts'],
    languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType: 'module' },
    plugins: { 'import-x': importX },
    settings: {
      // Without these the dependencies' files are never read, and no cycle is seen.
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.d.ts', '.js'] })],
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            // A feature imports nothing from another feature: what two share moves to lib/ or
            // components/, and a screen made of several features is put together in app/.
            ...features.map((feature) => ({
              target: `${src}/features/${feature}`,
              from: `${src}/features`,
              except: [`./${feature}`],
              message: `A feature does not import another feature: move what ${feature} shares to web/src/lib or web/src/components, or compose the two in web/src/app.`,
            })),
            // One way: shared → features → app.
            { target: `${src}/features`, from: `${src}/app`, message: 'A feature does not import from app/: app/ composes features.' },
            {
              target: [`${src}/components`, `${src}/lib`],
              from: [`${src}/features`, `${src}/app`],
              message: 'Shared code (lib/, components/) imports no feature and nothing from app/.',
            },
          ],
        },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
];
