package io.ttlstreams.processor;

/**
 * Whether the sink connector applies delete commands now, as this instance last learnt it: from the connector
 * monitor (its task fails because MongoDB cannot be written: no primary, unreachable, a refused login) and from the
 * sink's dead letters of writes that failed for a reason not their command's own (a write-concern error). While it
 * does not, a command sent again would only queue behind the ones it has not applied, or fail as they did, so an
 * unconfirmed delete waits, spending no attempt, instead of being re-emitted until it is given up on; and new commands
 * are paced ({@link EmissionPacer}).
 */
@FunctionalInterface
public interface SinkAvailability {

    /** For a processor that watches no connector: the sink is taken to write, as before there was a monitor. */
    SinkAvailability ASSUMED = now -> true;

    /**
     * Whether the sink applies commands at {@code now}.
     *
     * @param now the punctuator's wall-clock time, in epoch milliseconds, for what is judged by record times; a
     *     source with a clock of its own may ignore it
     */
    boolean writing(long now);

    /** Writing while both this and {@code other} say it writes. */
    default SinkAvailability and(SinkAvailability other) {
        return now -> writing(now) && other.writing(now);
    }
}
