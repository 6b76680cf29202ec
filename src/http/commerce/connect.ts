import { connectStore, disconnect } from '../../integrations/commerce/connect.ts';
import { emptyBody } from '../../schemas/common.ts';
import { connectBody, disconnectAnswer, storeAnswer } from '../../schemas/commerce.ts';
import { Answer } from '../route.ts';
import type { CommerceApi } from './api.ts';
import { commerceDeps } from './deps.ts';

export function connectRoutes({ route, ctx }: CommerceApi): void {
  const deps = commerceDeps(ctx);
  // Not `write`: connecting waits on the store, and no transaction may; connectStore writes once, after the store answered.
  route('POST', '/connect', { body: connectBody, errors: [409, 502], responses: { 200: storeAnswer, 201: storeAnswer } }, async ({ key, body }) => {
    const { store, created } = await connectStore(deps, key.projectId, body);
    return new Answer(store, created ? 201 : 200);
  });

  route('DELETE', '/connect', { body: emptyBody, optionalBody: true, responses: { 200: disconnectAnswer } }, ({ key }) => disconnect(deps, key.projectId));
}
