/**
 * The processor's state stores, one per kind of record, and their key encodings; the expiry schedule over them and
 * the lifecycle state of its entries ({@link io.ttlstreams.state.EntryState}).
 *
 * <p>Keys are raw bytes because the stores' order is the byte order (RocksDB's bytewise comparator, {@link
 * org.apache.kafka.common.utils.Bytes#compareTo}): a {@link io.ttlstreams.state.ScheduleKey} sorts by deadline, so the
 * punctuator finds due documents with one range scan, and a {@link io.ttlstreams.state.DocumentRef} starts with the
 * namespace's ids in the task's {@link io.ttlstreams.state.NamespaceIds dictionary}, so a dropped collection or
 * database is one prefix scan. The {@code index} store holds document references only; the task's own records
 * (checkpoints, dictionary, held counts) are in the {@code task} store, keyed by their kind.
 */
package io.ttlstreams.state;
