/**
 * Production Kafka Connect configurations for ttl-streams: the MongoDB source connectors that publish the change
 * events the processor reads, and the MongoDB sink connector that applies its delete commands.
 *
 * <p>{@link io.ttlstreams.connect.ConnectorConfigs} renders them from a processor configuration, so that the
 * connectors watch exactly the namespaces the rules name, publish only the fields the rules read, and write to the
 * topics the processor uses. The configurations target a real MongoDB replica set; nothing here caters for the
 * embedded stand-in. {@link io.ttlstreams.connect.ConnectRestClient} registers them and reads their status.
 */
package io.ttlstreams.connect;
