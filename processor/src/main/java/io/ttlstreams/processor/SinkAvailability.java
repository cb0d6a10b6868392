package io.ttlstreams.processor;

/**
 * Whether the sink connector applies delete commands now, as the processor's connector monitor last saw it. While it
 * does not (its task fails because MongoDB cannot be written: no primary, unreachable, a refused login), a command
 * sent again would only queue behind the ones it has not applied, so an unconfirmed delete waits, spending no
 * attempt, instead of being re-emitted until it is given up on.
 */
@FunctionalInterface
public interface SinkAvailability {

    /** For a processor that watches no connector: the sink is taken to write, as before there was a monitor. */
    SinkAvailability ASSUMED = () -> true;

    /** Whether the sink applies commands now. */
    boolean writing();
}
