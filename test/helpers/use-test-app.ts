import { createTenant } from './factories';
import { sameSecretAs, startServiceOn, type ServiceInstance } from './second-instance';
import { startTestApp, type StartTestAppOptions, type TestApp } from './test-app';

export type Tenant = Awaited<ReturnType<typeof createTenant>>;

export interface UseTestAppOptions extends StartTestAppOptions {
  /** Also make one organization with a key that holds every permission (`tenant`, `key`, `organizationId`). */
  tenant?: boolean;
  /**
   * Also start a second instance of the service on the app's database with the app's server secret
   * (`second`), what another server process sees; `true`, or the settings it reads beside that secret.
   */
  secondInstance?: boolean | Record<string, string>;
}

/** What `useTestApp` started, read inside tests and hooks (reading it earlier throws). */
export interface UsedTestApp {
  readonly app: TestApp;
  /** With `{ tenant: true }`: the organization made after start, and its key. */
  readonly tenant: Tenant;
  readonly key: string;
  readonly organizationId: string;
  /** With `{ secondInstance }`: the second instance on the same database, closed before the app. */
  readonly second: ServiceInstance;
  /**
   * Runs `close` at the end, before the app closes (last given, first run): what uses the app's database
   * or talks to it, such as a second instance on the same database, a webhook receiver or a browser.
   */
  beforeClose(close: () => unknown): void;
}

/**
 * The set-up every case file shares: in the enclosing describe (or the file), a beforeAll that starts the
 * service (`startTestApp(env, options)`), with `{ secondInstance }` a second instance on its database and
 * with `{ tenant: true }` one organization with a key (in that order), and an afterAll that closes what
 * was started, also when the set-up failed half-way. A file's own beforeAll, written
 * after this call, runs after it and can use what it made:
 *
 *   const ctx = useTestApp({ RATE_LIMIT_PER_MINUTE: '5' }, { tenant: true });
 *   test('...', async () => expect((await ctx.app.client.rest('GET', '/v1/events', ctx.key)).status).toBe(200));
 */
export function useTestApp(env: Record<string, string> = {}, options: UseTestAppOptions = {}): UsedTestApp {
  const { tenant: makeTenant = false, secondInstance, ...startOptions } = options;
  let app: TestApp | undefined;
  let second: ServiceInstance | undefined;
  let tenant: Tenant | undefined;
  const closers: Array<() => unknown> = [];

  beforeAll(async () => {
    app = await startTestApp(env, startOptions);
    if (secondInstance) {
      const secondEnv = secondInstance === true ? {} : secondInstance;
      const started = await startServiceOn(app.databaseUrl, { ...sameSecretAs(app), ...secondEnv });
      second = started;
      closers.push(() => started.close());
    }
    if (makeTenant) tenant = await createTenant(app.orm);
  });

  afterAll(async () => {
    const failures: unknown[] = [];
    for (const close of closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failures.push(error);
      }
    }
    try {
      await app?.close();
    } catch (error) {
      failures.push(error);
    }
    if (failures.length > 0) throw failures[0];
  });

  const started = (): TestApp => {
    if (!app) throw new Error('useTestApp: the app is read outside its tests and hooks, or it did not start');
    return app;
  };
  const made = (): Tenant => {
    if (!makeTenant) throw new Error('useTestApp: no tenant was asked for (pass { tenant: true })');
    if (!tenant) throw new Error('useTestApp: the tenant is read outside its tests and hooks, or it was not made');
    return tenant;
  };
  return {
    get app() {
      return started();
    },
    get tenant() {
      return made();
    },
    get key() {
      return made().key;
    },
    get organizationId() {
      return made().organization.id;
    },
    get second() {
      if (!second) throw new Error(secondInstance ? 'useTestApp: the second instance is read outside its tests and hooks, or it did not start' : 'useTestApp: no second instance was asked for (pass { secondInstance: true })');
      return second;
    },
    beforeClose(close) {
      closers.push(close);
    },
  };
}
