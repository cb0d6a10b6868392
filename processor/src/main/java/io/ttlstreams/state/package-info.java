/**
 * The processor's state stores and their key encodings.
 *
 * <p>Keys are raw bytes because the stores' order is the byte order (RocksDB's bytewise comparator, {@link
 * org.apache.kafka.common.utils.Bytes#compareTo}): a {@link io.ttlstreams.state.ScheduleKey} sorts by deadline, so the
 * punctuator finds due documents with one range scan, and a {@link io.ttlstreams.state.DocumentRef} starts with the
 * namespace's ids in the task's {@link io.ttlstreams.state.NamespaceIds dictionary}, so a dropped collection or
 * database is one prefix scan.
 */
package io.ttlstreams.state;
