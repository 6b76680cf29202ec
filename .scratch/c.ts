import { contractProblem } from '../test/helpers/contract.ts';
const u = (p: string) => new URL(p, 'http://x');
console.log(contractProblem('GET', u('/api/v1/members/alice'), 200, { id: 1 }, 'application/json'));
console.log(contractProblem('GET', u('/api/v1/members/lookup?x=1'), 200, { id: 1 }, 'application/json'));
console.log(contractProblem('GET', u('/api/v1/members/alice'), 418, { error: 'x', message: 'y' }, 'application/json'));
console.log(contractProblem('GET', u('/api/v1/members/alice'), 404, { error: 'x', message: 'y' }, 'application/json'));
console.log(contractProblem('GET', u('/api/v1/members/alice'), 404, { error: 'x' }, 'application/json'));
