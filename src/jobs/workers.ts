import type { AppDeps } from '../http/deps.js';

/**
 * Starts the job handlers (`character.process`, `motion.extract`, `render.run`) on the queue.
 * Implementation: issue "Job execution end to end".
 */
export async function startWorkers(deps: AppDeps): Promise<void> {
  void deps;
}
