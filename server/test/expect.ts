import { expect as jestExpect } from '@jest/globals';
import { createRequire } from 'node:module';

type JestExpect = typeof jestExpect;

// jest-expect-message's own entry patches the global `expect`, which `@jest/globals` does not hand out; its wrapper
// is applied to the imported one instead.
const { default: withMessage } = createRequire(import.meta.url)('jest-expect-message/dist/withMessage.js') as {
  default: (expect: JestExpect) => unknown;
};

/**
 * jest's `expect`, also as `expect(value, 'what was checked')`: a failing check then starts with that message, for
 * checks in loops and shared helpers where the values alone do not say which case failed.
 */
export const expect = withMessage(jestExpect) as JestExpect & (<T>(actual: T, message: string) => ReturnType<typeof jestExpect<T>>);
