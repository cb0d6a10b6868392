package io.ttlstreams.query;

import io.ttlstreams.schema.GuardState;
import io.ttlstreams.state.ScheduleStores;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * What the blast-radius guard holds for approval in this instance's tasks, per rule, read from the {@code
 * guard-state} stores: for readiness, {@code /v1/status}, the status page and the status line.
 */
public final class GuardHolds {

    private final KafkaStreams streams;

    public GuardHolds(KafkaStreams streams) {
        this.streams = streams;
    }

    /**
     * One rule's hold over the local tasks.
     *
     * @param rule the rule
     * @param held the documents held for approval
     * @param earliest the earliest deadline among them
     * @param latest the latest deadline among them
     */
    public record Hold(String rule, long held, Instant earliest, Instant latest) {

        /** The sentence readiness and the status page give. */
        public String reason() {
            return "rule " + rule + " holds " + held + " documents that came due on arrival past its blast-radius"
                    + " limit (deadlines " + earliest + " to " + latest + "); nothing of them is deleted until"
                    + " `ttl-streams approve --rule " + rule + "` (or --reject)";
        }
    }

    /** The rules holding documents, by name; empty when none is, or while the stores are not queryable. */
    public List<Hold> holds() {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return List.of();
        }
        Map<String, Hold> byRule = new TreeMap<>();
        try {
            ReadOnlyKeyValueStore<String, GuardState> states = streams.store(StoreQueryParameters.fromNameAndType(
                    ScheduleStores.GUARD_STATE, QueryableStoreTypes.<String, GuardState>keyValueStore()));
            // One entry per task that saw the rule: merged over the tasks.
            try (KeyValueIterator<String, GuardState> all = states.all()) {
                all.forEachRemaining(state -> {
                    if (state.value.getHeld() > 0) {
                        byRule.merge(
                                state.key,
                                new Hold(
                                        state.key,
                                        state.value.getHeld(),
                                        state.value.getEarliestHeld(),
                                        state.value.getLatestHeld()),
                                GuardHolds::merge);
                    }
                });
            }
        } catch (InvalidStateStoreException e) {
            return List.of(); // rebalancing: the next question will tell
        }
        return new ArrayList<>(byRule.values());
    }

    /** Readiness reasons: one per rule holding documents. */
    public List<String> reasons() {
        return holds().stream().map(Hold::reason).toList();
    }

    /** Documents held over every rule. */
    public long total() {
        return holds().stream().mapToLong(Hold::held).sum();
    }

    private static Hold merge(Hold a, Hold b) {
        return new Hold(
                a.rule(),
                a.held() + b.held(),
                a.earliest().isBefore(b.earliest()) ? a.earliest() : b.earliest(),
                a.latest().isAfter(b.latest()) ? a.latest() : b.latest());
    }
}
