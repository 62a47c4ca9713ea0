// The per-tenant cap on open event streams of one API process: a tenant that opens more than
// BUILDFLEET_SSE_STREAMS_PER_TENANT streams is answered 429 `too_many_event_streams`, so one tenant
// cannot take every socket and every slot of the shared readers for itself.

export class EventStreamSlots {
  private readonly openByTenant = new Map<string, number>();

  /** `perTenant` 0 = no cap. */
  constructor(private readonly perTenant: number) {}

  /** Takes a slot for the tenant: the function that gives it back (once), or null at the cap. */
  tryAcquire(tenant: string): (() => void) | null {
    const open = this.openByTenant.get(tenant) ?? 0;
    if (this.perTenant > 0 && open >= this.perTenant) return null;
    this.openByTenant.set(tenant, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.openByTenant.get(tenant) ?? 1) - 1;
      if (left <= 0) this.openByTenant.delete(tenant);
      else this.openByTenant.set(tenant, left);
    };
  }

  /** The tenant's open streams. */
  openStreams(tenant: string): number {
    return this.openByTenant.get(tenant) ?? 0;
  }
}
