package io.ttlstreams.resync;

import java.time.Instant;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * The cluster time a batch of resync events carries: a time at or before the moment MongoDB read the batch.
 *
 * <p>Before, never after, because the processor ignores a resync that is not newer than the latest change it applied
 * to the document. A stamp earlier than the read only makes the processor drop a resync whose document it has seen
 * change since the stamp, and that change's event already told it as much. A stamp later than the read could let a
 * resync carrying the document as it was before a renewal win over the renewal's event, and schedule the old
 * deadline again.
 *
 * @param clusterTime the stamp, compared with change events' clusterTime
 * @param source where it came from
 */
public record ReadStamp(BsonTimestamp clusterTime, Source source) {

    /** Where a stamp came from, best first. */
    public enum Source {
        /**
         * The operationTime of a command on a causally consistent session, run just before the read: the session's
         * next read sees at least everything up to it.
         */
        OPERATION_TIME("MongoDB's operationTime on a causally consistent session"),
        /**
         * The $clusterTime a server reported for a command run just before the read, where no operationTime came
         * back. A cluster time gossiped from elsewhere can run a little ahead of the data a node serves, so this is
         * the weaker source; servers that report one normally support sessions and give an operationTime.
         */
        CLUSTER_TIME("the $clusterTime MongoDB reported before each batch"),
        /**
         * This machine's clock, read before the command that precedes the read, in whole seconds with increment 0
         * (below every event of that second): for servers that report no cluster time at all, as a standalone
         * server. Only as right as the clocks of this machine and MongoDB agree.
         */
        WALL_CLOCK("this machine's clock before each batch (the server reports no cluster time)");

        private final String description;

        Source(String description) {
            this.description = description;
        }

        /** A phrase for the summary. */
        public String description() {
            return description;
        }
    }

    public ReadStamp {
        Objects.requireNonNull(clusterTime, "clusterTime");
        Objects.requireNonNull(source, "source");
    }

    /**
     * The stamp for a read that follows a command: the session's operation time, else the command response's
     * {@code operationTime}, else its {@code $clusterTime}, else {@code before} in whole seconds.
     *
     * @param sessionOperationTime the causally consistent session's operation time after the command; null without a
     *     session
     * @param response the command's response
     * @param before this machine's clock, read before the command was sent
     */
    static ReadStamp choose(BsonTimestamp sessionOperationTime, BsonDocument response, Instant before) {
        if (sessionOperationTime != null) {
            return new ReadStamp(sessionOperationTime, Source.OPERATION_TIME);
        }
        BsonValue operationTime = response.get("operationTime");
        if (operationTime != null && operationTime.isTimestamp()) {
            return new ReadStamp(operationTime.asTimestamp(), Source.OPERATION_TIME);
        }
        BsonValue gossiped = response.get("$clusterTime");
        if (gossiped != null && gossiped.isDocument()) {
            BsonValue clusterTime = gossiped.asDocument().get("clusterTime");
            if (clusterTime != null && clusterTime.isTimestamp()) {
                return new ReadStamp(clusterTime.asTimestamp(), Source.CLUSTER_TIME);
            }
        }
        // Increment 0 orders the stamp before every event of its second: the safe side within the second, too.
        return new ReadStamp(new BsonTimestamp((int) before.getEpochSecond(), 0), Source.WALL_CLOCK);
    }

    /**
     * The stamp as the time the processor counts from: a resync event has no wallTime, so last-modified rules count
     * from its clusterTime's seconds, as for any event without one.
     */
    public Instant instant() {
        return Instant.ofEpochSecond(Integer.toUnsignedLong(clusterTime.getTime()));
    }
}
