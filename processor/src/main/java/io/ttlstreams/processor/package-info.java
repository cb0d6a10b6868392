/**
 * The expiry scheduler: Kafka Streams processors that turn change events into schedule entries and
 * emit a conditional delete command for every entry whose deadline has passed.
 *
 * <p>{@link io.ttlstreams.processor.ChangeEventProcessor} parses and routes raw events (malformed ones
 * to the dead-letter topic, namespace-wide ones to every task through the control topic), and
 * {@link io.ttlstreams.processor.ExpirySchedulerProcessor} owns the state stores and the wall-clock
 * punctuator. The store names and key encodings live in {@link io.ttlstreams.state}.
 */
package io.ttlstreams.processor;
