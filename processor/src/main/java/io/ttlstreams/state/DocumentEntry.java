package io.ttlstreams.state;

import io.ttlstreams.schema.IndexEntry;
import org.apache.kafka.common.utils.Bytes;

/**
 * A document's entry as {@link ExpirySchedule#find} finds it: the document, where its entry is (its index entry and
 * schedule key) and the lifecycle state it is in, derived once.
 *
 * @param documentRef the document
 * @param position its index entry: timeline, due time, the clusterTime of its latest change, the fingerprint
 * @param key the schedule key of its entry
 * @param state its lifecycle state ({@link EntryState#at})
 */
public record DocumentEntry(Bytes documentRef, IndexEntry position, Bytes key, EntryState state) {}
