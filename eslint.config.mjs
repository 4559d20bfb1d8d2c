// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Type-aware rules (floating promises, unsafe any) over src/ and test/, run by `npm test` with zero
 * warnings allowed.
 */
export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '*.config.*', '.dependency-cruiser.cjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      // Plugin hooks and migrations are async by their interface, with or without an await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The admin CLI and the database start load heavy modules (MikroORM, the migrator, PGlite) with a
    // typed require() only on the path that needs them, so `--help` and most commands start in a
    // fraction of the time (import() is not an option under jest's CommonJS sandbox).
    files: ['src/doors/cli/**/*.ts', 'src/schema/database.ts', 'src/schema/embedded-postgres.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Row locks are taken by repositories only (*.repository.ts): a statement text that locks rows
    // anywhere else in src/ is an error. Migrations are history and run once, at start-up.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.repository.ts', 'src/schema/migrations/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['Literal[value', 'TemplateElement[value.raw'].map((node) => ({
          selector: `${node}=/\\b(for\\s+(no\\s+key\\s+)?update|for\\s+(key\\s+)?share|skip\\s+locked|nowait)\\b/i]`,
          message: 'Row locks (FOR UPDATE, FOR NO KEY UPDATE, FOR SHARE, SKIP LOCKED, NOWAIT) are taken in a repository only: move the statement into the module\'s *.repository.ts.',
        })),
      ],
    },
  },
  {
    // Tests read untyped JSON answers (response bodies are `any` by design there).
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
    },
  },
);
