export * from './db';
// Not registerEventPayloads: a service hands its bodies over by defining its catalogue (defineEvents), the one way.
export { EVENTS_CHANNEL, eventsOf, insertEvent, recordEvent, type EventSource, type NewEvent, type StoredEvent } from './events';
export * from './schedule';
export * from './signing';
export * from './catalogue';
export * from './endpoints';
export * from './manage';
export * from './disabled';
export * from './store/endpoints';
export * from './deliveries';
export * from './store/deliveries';
export * from './store';
