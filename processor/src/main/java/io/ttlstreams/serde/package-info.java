/**
 * Serdes for the processor's state stores and internal topics: Avro single-object encoding for the records of
 * {@code io.ttlstreams.schema}, and canonical extended JSON for {@link io.ttlstreams.event.ChangeEvent}.
 *
 * <p>Deserialization failures are {@link org.apache.kafka.common.errors.SerializationException}s naming the type, so
 * that Kafka Streams' deserialization exception handlers see them.
 */
package io.ttlstreams.serde;
