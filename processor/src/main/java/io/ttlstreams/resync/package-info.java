/**
 * Resync: reads the rules' documents from MongoDB and publishes each as a {@code resync} event to its namespace's
 * source topic, so that the processor schedules what the change stream never delivered to it (a rule added over
 * existing data, a lost resume token, a processor started after the events' retention).
 *
 * <p>{@link io.ttlstreams.resync.Resync} does one pass, for {@code ttl-streams resync} and the periodic sweep of
 * {@code run} ({@link io.ttlstreams.resync.ResyncSweep}) and the automatic resync of {@code run} after a collection
 * was replaced or re-created ({@link io.ttlstreams.resync.RewriteResync}, which finds such collections by their
 * changed UUID) alike: {@link io.ttlstreams.resync.ResyncPlan} decides which
 * namespaces to read and where their events go, {@link io.ttlstreams.resync.ReadStamps} stamps each batch with a
 * cluster time taken before it is read, {@link io.ttlstreams.resync.ResyncEvent} is the record the processor parses
 * like a change event, and {@link io.ttlstreams.resync.KafkaResyncPublisher} writes it with an idempotent producer.
 * Nothing here is part of the Kafka Streams topology.
 */
package io.ttlstreams.resync;
