/** Slots an endpoint may hold until one of its attempts succeeds (see the fair claim). */
export const UNPROVEN_IN_FLIGHT = 2;

/**
 * Endpoints whose last attempt succeeded. Any other (new, failing, black-holed) may hold only
 * UNPROVEN_IN_FLIGHT slots: a hung attempt keeps its slot for the whole timeout, so without this a
 * few dead endpoints would fill the runner before anyone else's deliveries fell due. Only
 * deliveries queued for proven endpoints count as arrivals, the new work the pacer keeps pace
 * with: a dead endpoint's pile up whatever the runner does, and must not keep it from backing off.
 */
export class ProvenEndpoints {
  readonly #proven = new Set<string>();
  #arrivals = 0;

  /** The slots an endpoint may hold, given its fair share. */
  cap(webhookId: string, fairShare: number): number {
    return this.#proven.has(webhookId) ? fairShare : Math.min(fairShare, UNPROVEN_IN_FLIGHT);
  }

  /** An attempt ended: it proves the endpoint, or takes the proof away. */
  attempted(webhookId: string, succeeded: boolean): void {
    if (succeeded) this.#proven.add(webhookId);
    else this.#proven.delete(webhookId);
  }

  /** Deliveries were queued, one per endpoint id. */
  enqueued(webhookIds: Iterable<string>): void {
    for (const id of webhookIds) if (this.#proven.has(id)) this.#arrivals++;
  }

  /** Deliveries queued so far for endpoints that were proven then (a running count). */
  arrivals(): number {
    return this.#arrivals;
  }
}

/** An endpoint competing for delivery slots. */
export interface Contender {
  id: string;
  projectId: string;
  /** Deliveries of it in flight now. */
  inFlight: number;
  /** Deliveries of it due now, counted up to what it could be given. */
  due: number;
}

/**
 * How many slots an endpoint may hold at once while others compete: the runner's slots split
 * evenly between the projects with work, and each project's share evenly between its endpoints,
 * never above `perEndpoint` nor below 1. A project's black-holed endpoints then hold at most
 * their share, and every other project keeps slots free for its own deliveries.
 */
export function endpointCaps(contenders: { id: string; projectId: string }[], concurrency: number, perEndpoint: number): Map<string, number> {
  const byProject = new Map<string, number>();
  for (const { projectId } of contenders) byProject.set(projectId, (byProject.get(projectId) ?? 0) + 1);
  const projectShare = Math.max(1, Math.floor(concurrency / Math.max(1, byProject.size)));
  return new Map(contenders.map(({ id, projectId }) =>
    [id, Math.min(perEndpoint, Math.max(1, Math.floor(projectShare / byProject.get(projectId)!)))]));
}

/**
 * Hands out up to `limit` free slots one at a time, round robin between projects and, within a
 * project, between its endpoints, starting from the project after the one that went first last
 * time (`turn`). Returns how many deliveries to claim per endpoint.
 */
export function allot(wants: { id: string; projectId: string; want: number }[], limit: number, turn: number): Map<string, number> {
  const projects = new Map<string, { id: string; want: number }[]>();
  for (const { id, projectId, want } of wants) {
    if (want <= 0) continue;
    const list = projects.get(projectId) ?? [];
    list.push({ id, want });
    projects.set(projectId, list);
  }
  const order = [...projects.values()];
  const start = order.length === 0 ? 0 : turn % order.length;
  const queue = [...order.slice(start), ...order.slice(0, start)];
  const given = new Map<string, number>();
  const next = new Map<(typeof queue)[number], number>();
  let left = limit;
  while (left > 0 && queue.length > 0) {
    for (let p = 0; p < queue.length && left > 0;) {
      const endpoints = queue[p]!;
      const at = next.get(endpoints) ?? 0;
      const endpoint = endpoints[at % endpoints.length]!;
      given.set(endpoint.id, (given.get(endpoint.id) ?? 0) + 1);
      left--;
      if (--endpoint.want === 0) endpoints.splice(at % endpoints.length, 1);
      else next.set(endpoints, at + 1);
      if (endpoints.length === 0) queue.splice(p, 1);
      else p++;
    }
  }
  return given;
}
