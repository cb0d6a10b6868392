/**
 * The application's configuration: one Kafka-style {@link org.apache.kafka.common.config.ConfigDef} whose options
 * are validated at start-up, so that a typo or a nonsensical TTL stops the application instead of silently deleting
 * the wrong documents (or none).
 *
 * <p>Keys starting with {@code ttl.} or {@code embedded.} belong to ttl-streams and unknown ones are errors; every
 * other key is a Kafka Streams setting and passes through
 * {@link io.ttlstreams.config.TtlStreamsConfig#streamsProperties()}.
 * Each rule's options live under {@code ttl.rule.<name>.}, embedded from {@link io.ttlstreams.config.RuleConfig} the
 * way Kafka Connect embeds {@code transforms.<alias>.}.
 */
package io.ttlstreams.config;
