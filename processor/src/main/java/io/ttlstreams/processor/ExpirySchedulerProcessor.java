package io.ttlstreams.processor;

import io.micrometer.core.instrument.Counter;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.state.ScheduleStores;
import io.ttlstreams.state.UnscheduledNotes;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the expiry schedule, emits delete commands when deadlines pass, and follows each command until the change
 * stream confirms the delete.
 *
 * <p>It composes parts with one job each, wired per task in {@link #init}, none of which knows another: the {@link
 * EventApplier} applies change events to the schedule, the {@link DueDrain} drains what is due at each wall-clock
 * punctuation (budget, throttle, emission, confirmation retries and read-back answers), the {@link RuleReconciler}
 * reconciles the schedule with changed rules (its {@link RuleCheck} is how the drain asks), and the {@link
 * BlastRadiusGuard} holds what comes due on arrival past its rule's limit until an operator's {@link GuardDecision}
 * (from the control topic); its {@link Admission} is how the others ask. They share the task's {@link ExpirySchedule},
 * which counts what it holds for approval, and report what happens to its entries to one sink, the {@link Outcomes}.
 * An event that cannot be applied throws: Kafka Streams hands it to {@link ProcessingFailureHandler}, which
 * dead-letters it, and the task goes on.
 */
public final class ExpirySchedulerProcessor implements Processor<String, Object, String, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(ExpirySchedulerProcessor.class);

    private final SchedulerSettings settings;
    private final Outputs outputs;
    private final PunctuationTimeShare timeShare;

    private ProcessorContext<String, Object> context;
    private TtlMetrics metrics;
    private Counter punctuationFailures;
    private EventApplier applier;
    private LookupRereads rereads;
    private RuleReconciler reconciler;
    private DueDrain drain;
    private BlastRadiusGuard guard;
    /** The thread this task joined the time share on, to leave it when closed. */
    private Thread timeShareThread;

    private ExpirySchedulerProcessor(SchedulerSettings settings, Outputs outputs, PunctuationTimeShare timeShare) {
        this.settings = settings;
        this.timeShare = timeShare;
        this.outputs = outputs;
    }

    /**
     * Supplies one scheduler per task, together with the stores it keeps the schedule in, which the topology attaches
     * to the node the supplier is added as.
     *
     * @param settings rules, punctuation bounds, throttle, confirmation
     * @param outputs the nodes the scheduler forwards to
     */
    public static ProcessorSupplier<String, Object, String, Object> supplier(
            SchedulerSettings settings, Outputs outputs) {
        PunctuationTimeShare timeShare = new PunctuationTimeShare(settings.config());
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, Object, String, Object> get() {
                return new ExpirySchedulerProcessor(settings, outputs, timeShare);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                // In a fixed order: the topology's description lists them as they were added.
                return new LinkedHashSet<>(List.of(
                        ScheduleStores.schedule(),
                        ScheduleStores.index(),
                        ScheduleStores.task(),
                        ScheduleStores.namespaceEpochs(),
                        ScheduleStores.ruleVersions(),
                        ScheduleStores.guardState(),
                        ScheduleStores.unscheduledNotes()));
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        TtlStreamsConfig config = settings.config();
        this.metrics = TtlMetrics.forTask(context);
        // Per instance, never removed: a punctuation that throws fails its thread, and with it the thread's tasks.
        this.punctuationFailures = TtlMetrics.instanceCounter(
                TtlMetrics.registry(context.appConfigs()), TtlMetrics.PUNCTUATION_FAILURES, Map.of());
        ExpirySchedule schedule = new ExpirySchedule(
                context.getStateStore(ScheduleStores.SCHEDULE),
                context.getStateStore(ScheduleStores.INDEX),
                context.getStateStore(ScheduleStores.TASK));
        Outcomes outcomes = new Outcomes(
                metrics,
                ruleNames(),
                settings.readBack().isPresent(),
                new AuditWriter(config.auditTopic().isPresent(), context, outputs.audit(), schedule),
                new ExpiredRecords(
                        config.expiryEvents(),
                        schedule,
                        config.rules(),
                        context,
                        outputs.expired(),
                        settings.maxRecordBytes()),
                schedule);
        CommandSizeBound commandBound = new CommandSizeBound(settings.maxRecordBytes());
        this.guard = new BlastRadiusGuard(
                settings, schedule, context.getStateStore(ScheduleStores.GUARD_STATE), outcomes, context.taskId());
        this.rereads = new LookupRereads(settings.readBack(), metrics);
        this.applier = new EventApplier(
                config.rules(),
                commandBound,
                schedule,
                new UnscheduledNotes(context.getStateStore(ScheduleStores.UNSCHEDULED_NOTES)),
                new NamespaceDrops(context.getStateStore(ScheduleStores.NAMESPACE_EPOCHS)),
                guard,
                outcomes,
                rereads,
                context);
        this.reconciler = new RuleReconciler(
                settings,
                schedule,
                context.getStateStore(ScheduleStores.RULE_VERSIONS),
                guard,
                outcomes,
                context.taskId());
        Optional<DeleteThrottle> throttle = config.maxDeletesPerSecond().stream()
                .mapToObj(limit -> new DeleteThrottle(throttleShare(limit)))
                .findFirst();
        EmissionPacer pacer = new EmissionPacer(
                config.outageDeletesPerSecond(),
                (long) config.punctuateMaxEntries()
                        * Math.max(1, 1_000 / config.punctuateInterval().toMillis()),
                metrics.counter(TtlMetrics.EMISSIONS_PACED),
                context.taskId());
        this.drain = new DueDrain(
                settings,
                commandBound,
                schedule,
                throttle,
                pacer,
                reconciler,
                guard,
                outcomes,
                context,
                outputs.deletes());
        // Wall-clock time, not stream time: stream time only advances when records arrive, and documents must
        // expire at their deadline even when no change event arrives for hours.
        context.schedule(config.punctuateInterval(), PunctuationType.WALL_CLOCK_TIME, this::punctuate);
        this.timeShareThread = timeShare.join();
    }

    /**
     * Goes on with the rule walk if one is pending (what it finds due under changed rules goes out in this very run),
     * drains what is due, and has the guard log each rule's hold once it settles.
     */
    private void punctuate(long now) {
        try {
            long started = settings.nanoClock().getAsLong();
            long maxNanos = timeShare.maxNanos();
            rereads.answers(answer -> applier.reread(answer, now));
            reconciler.goOn(now, started, maxNanos);
            drain.punctuate(now, started, maxNanos);
            guard.punctuate();
        } catch (RuntimeException | Error e) {
            // The punctuation is what deletes: carrying on without it would leave a task that no longer expires
            // anything while looking healthy. Counted here, it fails the stream thread, which is replaced from the
            // last commit under the application's failure policy.
            punctuationFailures.increment();
            LOG.error("Punctuation of task {} failed; the stream thread stops", context.taskId(), e);
            throw e;
        }
    }

    /**
     * This task's whole share of the application-wide limit. A source topic given more partitions while the
     * application runs brings tasks beyond the count the shares were split for: failing their initialisation would
     * stop expiry for good, so such a task gets the smallest share, 1 per second, and the application may exceed the
     * limit by that much until a restart splits it again (start-up then checks the limit against the new count).
     */
    private int throttleShare(int limit) {
        int partition = context.taskId().partition();
        if (partition < settings.partitions()) {
            return DeleteThrottle.share(limit, settings.partitions(), partition);
        }
        LOG.warn(
                "Task {}: the source topics have more partitions than the {} ttl.max.deletes.per.second was split"
                        + " over at start-up; this task deletes at most 1 per second until a restart",
                context.taskId(),
                settings.partitions());
        return 1;
    }

    @Override
    public void process(Record<String, Object> record) {
        // The rules are total functions, so a failure is a bug, or a document beyond what they can handle: it is
        // thrown on to Kafka Streams, whose processing exception handler dead-letters the record.
        if (record.value() instanceof GuardDecision decision) {
            guard.decide(decision, context.currentSystemTimeMs());
        } else if (record.value() instanceof ChangeEvent event) {
            applier.apply(event, record.timestamp());
        }
    }

    @Override
    public void close() {
        if (timeShareThread != null) {
            timeShare.leave(timeShareThread);
        }
        if (drain != null) {
            drain.close();
        }
        if (rereads != null) {
            rereads.close();
        }
        if (metrics != null) {
            metrics.close();
        }
    }

    private List<String> ruleNames() {
        return settings.config().rules().rules().stream().map(TtlRule::name).toList();
    }
}
