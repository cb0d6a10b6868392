package io.ttlstreams.processor;

import java.util.Objects;

/**
 * The names of the nodes the processors forward to, handed in by the topology that wires them, so that a processor
 * says where its records go without knowing the topology that built it.
 *
 * @param scheduler the processor that keeps the schedule
 * @param control the sink of the control topic, which carries namespace-wide events to every task
 * @param deletes the sink of the delete commands
 * @param audit the sink of the audit events (forwarded to only when the audit topic is on)
 * @param expired the sink of the expired records (forwarded to only when their topic is on)
 * @param deadLetters the sink of the dead-letter topic
 */
public record Outputs(
        String scheduler, String control, String deletes, String audit, String expired, String deadLetters) {

    /** Checks that every name is given. */
    public Outputs {
        Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(control, "control");
        Objects.requireNonNull(deletes, "deletes");
        Objects.requireNonNull(audit, "audit");
        Objects.requireNonNull(expired, "expired");
        Objects.requireNonNull(deadLetters, "deadLetters");
    }
}
