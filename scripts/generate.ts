import { relative } from 'node:path';
import { ROOT, generateAll } from './pipeline.js';

const written = await generateAll(`${ROOT}/generated`);
for (const file of written) console.log(`wrote ${relative(ROOT, file)}`);
