import { runTask } from './evaluation-tasks.js';

/** The entry of the rule-evaluation worker threads (see EvaluationPool): one task in, its result out. */
export default runTask;
