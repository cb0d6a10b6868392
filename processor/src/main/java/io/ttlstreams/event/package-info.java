/**
 * Change events as the MongoDB Kafka source connector (2.0.x, {@code output.format.value=json} with the
 * {@code ExtendedJson} formatter) publishes them, parsed with the official BSON library into {@link
 * io.ttlstreams.event.ChangeEvent}.
 *
 * <p>The parser is strict about what decides correctness (operation type, namespace, document id) and reports any
 * problem as an {@link io.ttlstreams.event.InvalidChangeEventException}, so that the processor can route the record to
 * the dead-letter topic instead of guessing. The times an event claims are judged by {@link
 * io.ttlstreams.event.EventTimeWindow}, against its record's time and MongoDB's measured clock ({@link
 * io.ttlstreams.event.SourceClock}).
 */
package io.ttlstreams.event;
