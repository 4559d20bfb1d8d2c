/**
 * Runs case files (`test/*.cases.ts`) in one jest test file, each in a describe named after it.
 * Every jest test file loads the service's whole module graph again (about a second of CPU), so case
 * files that would each be a test file of their own share one load in a group
 * (`test/group-*.test.ts`). Each case file still starts its own app on its own database in its own
 * beforeAll and closes it in its afterAll, as a test file of its own would (`useTestApp` in
 * test/helpers/use-test-app.ts registers both).
 * To run one case file: `npx jest test/group-events-1.test.ts -t 'events-delete'`.
 */
export function caseFile(name: string, load: () => unknown): void {
  describe(name, () => {
    load();
  });
}
