/*
 * Inventory slots (D7): the rules of a hot event's split inventory, as pure functions. The SQL
 * that keeps them is in inventory.repository.ts (and, for the seats of bookings, inventory-modes.repository.ts).
 *
 * A single row holding an event's count can take one booking per commit flush, whatever the machine:
 * every buyer of a ticket drop waits for the one ahead. A slotted event splits what is left of its
 * capacity, and of each ticket type's quantity, into SLOT_COUNT shares, one row each ("slots"); a
 * booking claims one slot (the first free one from a random start) and commits without waiting for
 * bookings on other slots. The counts clients see are the row's own plus the sum of its slots'
 * (`taken`), always exact: both are read in one statement. Shares only move under the locks of every
 * slot of the pool, so that "never oversell" holds: no slot takes more than its share (a CHECK), and
 * the shares add up to what is left.
 */

/** Slots per slotted event (and per ticket type of one). */
export const SLOT_COUNT = 16;

/**
 * Events that take slots when they are published: those without a capacity and those of at least this
 * many seats. A small event gains nothing from slots (few buyers, and its seats would be spread thin
 * over them), so it keeps its count on its row.
 */
export const SLOTTED_MIN_CAPACITY = 500;

export function usesSlots(capacity: number | null): boolean {
  return capacity === null || capacity >= SLOTTED_MIN_CAPACITY;
}

/** `room` split into `count` shares as even as can be (the first ones one more). */
export function shares(room: number, count: number = SLOT_COUNT): number[] {
  const base = Math.floor(room / count);
  const extra = room % count;
  return Array.from({ length: count }, (_, index) => base + (index < extra ? 1 : 0));
}

/** A slot as locked for a change of shares: its share (null: unlimited) and what it has taken. */
export interface SlotState {
  readonly slot: number;
  readonly seats: number | null;
  readonly taken: number;
}

/** What is left in a pool's slots (null: unlimited). */
export function roomOf(slots: readonly SlotState[]): number | null {
  let room = 0;
  for (const { seats, taken } of slots) {
    if (seats === null) return null;
    room += seats - taken;
  }
  return room;
}

/**
 * The shares after moving room into `target` from the other slots (the fullest first) until it can
 * take `requested` more: the smallest change. Unlimited slots need none. The caller checked that the
 * pool's room covers the request.
 */
export function gatherInto(slots: readonly SlotState[], target: number, requested: number): SlotState[] {
  const into = slots.find((slot) => slot.slot === target);
  if (!into || into.seats === null) return [...slots];
  let missing = requested - (into.seats - into.taken);
  if (missing <= 0) return [...slots];
  const changed = new Map<number, number>();
  const donors = slots.filter((slot) => slot.slot !== target).sort((a, b) => b.seats! - b.taken - (a.seats! - a.taken));
  for (const donor of donors) {
    if (missing <= 0) break;
    const give = Math.min(missing, donor.seats! - donor.taken);
    if (give <= 0) continue;
    changed.set(donor.slot, donor.seats! - give);
    missing -= give;
  }
  changed.set(target, into.seats + requested - (into.seats - into.taken) - Math.max(0, missing));
  return slots.map((slot) => (changed.has(slot.slot) ? { ...slot, seats: changed.get(slot.slot)! } : slot));
}

/**
 * The shares of a pool whose total changed (a new capacity or quantity): every slot keeps what it has
 * taken, and the room left is split evenly again. `room` ≥ 0 (the caller refused a total below what is taken).
 */
export function reshare(slots: readonly SlotState[], room: number | null): SlotState[] {
  if (room === null) return slots.map((slot) => ({ ...slot, seats: null }));
  const split = shares(room, slots.length);
  return slots.map((slot, index) => ({ ...slot, seats: slot.taken + split[index] }));
}

/** The slot of a pool with the most room (an unlimited one first): where a booking too large for any one slot gathers its room. */
export function roomiestSlot(slots: readonly SlotState[]): number {
  const room = (slot: SlotState) => (slot.seats === null ? Infinity : slot.seats - slot.taken);
  return slots.reduce((best, slot) => (room(slot) > room(best) ? slot : best), slots[0]).slot;
}
