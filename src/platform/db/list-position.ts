/** A position in a list (D25): the sort key in microseconds since the epoch (as text) and the id of a row. */
export type ListPosition = readonly [sortKey: string, id: string];
