/** `npm run bench:assignment`: prints the assignment simulation table (no broker needed). */
import { runAssignmentSimulation } from './assignment-simulation.js';

const started = performance.now();
process.stdout.write(`${runAssignmentSimulation()}\n`);
process.stderr.write(`simulated in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
