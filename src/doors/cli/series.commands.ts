import type * as CreateModule from '../../modules/series/commands/create-series';
import type * as OrganizationRepositoryModule from '../../modules/organization/organization.repository';
import type * as ViewModule from '../../modules/series/series.view';
import { parseAll, parseCsv, parsePositiveInteger, required } from './arguments';
import { type Command, parser } from './command';

/** RFC 5545 date lines from a list of local date-times (`2027-03-05T18:00` or `20270305T180000`). */
function dateLine(name: 'RDATE' | 'EXDATE', csv: string | undefined): string[] {
  if (csv === undefined) return [];
  const values = parseCsv(csv).map((value) => value.replace(/[-:]/g, '').replace(/^(\d{8}T\d{4})$/, '$100'));
  return values.length > 0 ? [`${name}:${values.join(',')}`] : [];
}

export const SERIES_COMMANDS: Command[] = [
  {
    name: 'series create',
    usage:
      'series create --org ORG_ID --slug SLUG --title TITLE --timezone TZ --first-start LOCAL --duration MINUTES --rule RRULE [--rdates CSV] [--exdates CSV] [--capacity N] [--venue TEXT] [--description TEXT]',
    help: `series create --org ORG_ID --slug SLUG --title TITLE --timezone TZ --first-start LOCAL --duration MINUTES --rule RRULE [--rdates CSV] [--exdates CSV] [--capacity N] [--venue TEXT] [--description TEXT]
  Creates an event series (D28) and every occurrence, as createSeries does: --first-start is a local
  date-time of --timezone without offset (2027-03-02T18:00), --rule an RFC 5545 RRULE that ends
  ("FREQ=WEEKLY;BYDAY=TU;UNTIL=20270601T000000Z", UNTIL in UTC; "RRULE:" optional), --rdates and
  --exdates local date-times to add or leave out. At most 1,000 occurrences within 3 years. Prints
  the series; the occurrences are events in DRAFT named {slug}-{YYYY-MM-DD}.`,
    parse: parser({
      org: { type: 'string' },
      slug: { type: 'string' },
      title: { type: 'string' },
      timezone: { type: 'string' },
      'first-start': { type: 'string' },
      duration: { type: 'string' },
      rule: { type: 'string' },
      rdates: { type: 'string' },
      exdates: { type: 'string' },
      capacity: { type: 'string' },
      venue: { type: 'string' },
      description: { type: 'string' },
    }),
    async run(scope, options) {
      const { findOrganization } = require('../../modules/organization/organization.repository') as typeof OrganizationRepositoryModule;
      const { createSeriesFrom } = require('../../modules/series/commands/create-series') as typeof CreateModule;
      const { seriesView } = require('../../modules/series/series.view') as typeof ViewModule;
      const given = parseAll({
        org: () => required(options, 'org'),
        slug: () => required(options, 'slug'),
        title: () => required(options, 'title'),
        timezone: () => required(options, 'timezone'),
        firstStart: () => required(options, 'first-start'),
        duration: () => parsePositiveInteger(required(options, 'duration'), 'duration'),
        rule: () => required(options, 'rule'),
        capacity: () => (options.capacity === undefined ? null : parsePositiveInteger(options.capacity, 'capacity')),
      });
      // Like the other commands that take --org: an unknown organization is NOT_FOUND.
      await findOrganization(scope.em, given.org);
      const rule = /^RRULE:/i.test(given.rule) ? given.rule : `RRULE:${given.rule}`;
      const series = await createSeriesFrom(scope, given.org, {
        slug: given.slug,
        title: given.title,
        timezone: given.timezone,
        firstStart: given.firstStart,
        durationMinutes: given.duration,
        recurrence: [rule, ...dateLine('RDATE', options.rdates), ...dateLine('EXDATE', options.exdates)],
        capacity: given.capacity,
        venue: options.venue ?? null,
        description: options.description ?? null,
      });
      return seriesView(series);
    },
  },
];
