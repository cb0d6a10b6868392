package io.ttlstreams.processor;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.schema.GuardState;
import io.ttlstreams.schema.RuleVersion;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.state.ScheduleStores;
import io.ttlstreams.state.UnscheduledNotes;
import io.ttlstreams.topology.TtlTopology;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * The scheduler's parts' collaborators for unit tests: a mock context, in-memory stores with the schedule's serdes,
 * settings with one field rule "sessions" on app.sessions (field expireAt), the outcomes sink (with its audit writer) and
 * the guard.
 */
final class SchedulerParts {

    static final Namespace SESSIONS = Namespace.parse(TestConfigs.NAMESPACE);

    final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
    /** Where the parts' meters are, to read what they counted. */
    final MeterRegistry meters = new SimpleMeterRegistry();

    final KeyValueStore<String, Long> namespaceEpochs =
            store(ScheduleStores.NAMESPACE_EPOCHS, Serdes.String(), Serdes.Long());
    final KeyValueStore<String, RuleVersion> ruleVersions =
            store(ScheduleStores.RULE_VERSIONS, Serdes.String(), ScheduleStores.RULE_VERSION_VALUES);
    final KeyValueStore<String, GuardState> guardStates =
            store(ScheduleStores.GUARD_STATE, Serdes.String(), ScheduleStores.GUARD_STATE_VALUES);
    final ExpirySchedule schedule = new ExpirySchedule(
            store(ScheduleStores.SCHEDULE, Serdes.Bytes(), ScheduleStores.SCHEDULE_VALUES),
            store(ScheduleStores.INDEX, Serdes.Bytes(), ScheduleStores.INDEX_VALUES),
            store(ScheduleStores.TASK, Serdes.Bytes(), ScheduleStores.TASK_VALUES));
    final UnscheduledNotes notes = new UnscheduledNotes(
            store(ScheduleStores.UNSCHEDULED_NOTES, Serdes.Integer(), ScheduleStores.UNSCHEDULED_NOTE_VALUES));
    final SchedulerSettings settings;
    final AuditWriter audit;
    final Outcomes outcomes;
    final BlastRadiusGuard guard;

    /** Parts with the sessions rule and {@code extra} settings (key, value, ...). */
    SchedulerParts(String... extra) {
        Map<String, String> props = TestConfigs.settings(extra);
        props.putIfAbsent(StreamsConfig.APPLICATION_ID_CONFIG, "ttl-streams-test");
        props.putIfAbsent(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        TtlStreamsConfig config = new TtlStreamsConfig(props);
        // A clock that stands still: no test here spends a punctuation's time budget.
        this.settings = new SchedulerSettings(config, 1, () -> 0, Optional.empty(), SinkAvailability.ASSUMED);
        this.audit = new AuditWriter(config.auditTopic().isPresent(), context, TtlTopology.AUDIT_SINK, schedule);
        this.outcomes = new Outcomes(
                TtlMetrics.forTask(meters, context.taskId().toString()),
                List.of("sessions"),
                settings.readBack().isPresent(),
                audit,
                new ExpiredRecords(
                        config.expiryEvents(),
                        schedule,
                        config.rules(),
                        context,
                        TtlTopology.EXPIRED_SINK,
                        settings.maxRecordBytes()),
                schedule);
        this.guard = new BlastRadiusGuard(settings, schedule, guardStates, outcomes, context.taskId());
    }

    /** The event applier of these parts, as a task (re)started on their stores builds it. */
    EventApplier applier() {
        return new EventApplier(
                settings.config().rules(),
                new CommandSizeBound(settings.maxRecordBytes()),
                schedule,
                notes,
                new NamespaceDrops(namespaceEpochs),
                guard,
                outcomes,
                new LookupRereads(
                        settings.readBack(),
                        TtlMetrics.forTask(meters, context.taskId().toString())),
                context);
    }

    /** The rule reconciler of these parts. */
    RuleReconciler reconciler() {
        return new RuleReconciler(settings, schedule, ruleVersions, guard, outcomes, context.taskId());
    }

    /** The reference of the sessions document with {@code _id} {@code id}, in these parts' dictionary. */
    Bytes ref(String id) {
        return schedule.namespaces().ref(SESSIONS, new BsonDocument("_id", new BsonString(id)));
    }

    /** The entry the sessions rule gives the document {@code id} expiring at {@code expireAt}. */
    ScheduleEntry entry(String id, Instant expireAt) {
        ExpiryDecision decision = settings.config().rules().evaluate(SESSIONS, document(id, expireAt), expireAt);
        return ScheduleEntries.of(
                decision, settings.config().rules().rule(decision.rule()).orElseThrow());
    }

    /** A sessions document whose field rule expires it at {@code expireAt}. */
    static BsonDocument document(String id, Instant expireAt) {
        return new BsonDocument("_id", new BsonString(id))
                .append("expireAt", new BsonDateTime(expireAt.toEpochMilli()));
    }

    /** The total a counter of the sensors recorded. */
    double total(String counter) {
        return ExpiryFigures.of(meters).total(counter);
    }

    private <K, V> KeyValueStore<K, V> store(String name, Serde<K> keys, Serde<V> values) {
        KeyValueStore<K, V> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), keys, values)
                .withLoggingDisabled()
                .build();
        store.init(context.getStateStoreContext(), store);
        return store;
    }
}
