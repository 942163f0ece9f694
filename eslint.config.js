// ESLint owns correctness, Prettier owns formatting.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.scratch/**',
      'test-results/**',
      'test/fixtures/**',
      'eslint.config.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-restricted-properties': [
        'error',
        { object: 'test', property: 'only', message: 'No exclusive tests.' },
        { object: 'it', property: 'only', message: 'No exclusive tests.' },
        { object: 'describe', property: 'only', message: 'No exclusive tests.' },
      ],
    },
  },
  {
    // node:test's test() returns a promise the runner itself awaits.
    files: ['**/*.test.ts', '**/*.test.tsx'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
  {
    files: ['**/*.mjs', 'scripts/**', 'bin/**'],
    ...tseslint.configs.disableTypeChecked,
  },
);
