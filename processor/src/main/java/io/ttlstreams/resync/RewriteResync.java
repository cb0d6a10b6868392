package io.ttlstreams.resync;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.util.NamedThreadFactory;
import io.ttlstreams.config.ResyncOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.resync.CollectionIdentities.Rewrite;
import io.ttlstreams.rules.TtlRule;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.KafkaException;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The automatic resync after a rewrite: on a thread of its own, {@code run} lists the collections of the rules'
 * databases every {@value ResyncOptions#REWRITE_CHECK_INTERVAL_MS_CONFIG} and resyncs, one at a time, exactly the
 * namespaces whose collection was replaced or re-created since the last list ({@link CollectionIdentities}), each
 * {@value ResyncOptions#REWRITE_DELAY_MS_CONFIG} after the rewrite was seen, so that the source connector's change
 * stream, restarted without its resume token after the invalidate a drop or rename brings, is open again when the
 * collection is read: a write before the read is read, one after it arrives as a change event. A resync never makes a
 * deadline earlier than its rule says: its events carry the cluster time read before each batch, which loses to any
 * newer change ({@link ReadStamp}), and the processor never moves a last-modified deadline earlier on a resync.
 *
 * <p>Bounded: only rewritten namespaces, each once however often it was rewritten before its resync ran, one resync at
 * a time, none of a collection larger than {@value ResyncOptions#REWRITE_MAX_DOCUMENTS_CONFIG}. Each one is counted
 * ({@value TtlMetrics#RESYNCS_AUTOMATIC}, tagged with its reason) and logged in one INFO line saying why it ran. A check
 * or resync that fails (MongoDB or Kafka unreachable) is logged and tried again at the next check.
 */
public final class RewriteResync implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RewriteResync.class);
    /** The metric's reason for a rewritten collection left out as too large. */
    static final String TOO_LARGE = "too-large";

    private final TtlStreamsConfig config;
    private final MongoClient client;
    private final Resync resync;
    private final ResyncSink sink;
    private final MeterRegistry registry;
    private final Clock clock;
    private final CollectionIdentities identities = new CollectionIdentities();
    /** Rewritten namespaces waiting for their resync, in the order they were seen. */
    private final Map<Namespace, Pending> pending = new LinkedHashMap<>();

    private final Counter checks;
    private boolean uuidMissingLogged;
    private final ScheduledExecutorService executor;

    private record Pending(Rewrite rewrite, Instant due) {}

    RewriteResync(
            TtlStreamsConfig config,
            MongoClient client,
            ResyncSink sink,
            MeterRegistry registry,
            Clock clock,
            Duration interval) {
        this.config = Objects.requireNonNull(config, "config");
        this.client = Objects.requireNonNull(client, "client");
        this.sink = Objects.requireNonNull(sink, "sink");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.resync = new Resync(config, client, clock);
        this.checks = TtlMetrics.instanceCounter(registry, TtlMetrics.REWRITE_CHECKS, Map.of());
        this.executor =
                Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("ttl-streams-rewrite-resync"));
        // The first check at once: it is the baseline every later rewrite is measured against.
        executor.scheduleWithFixedDelay(this::check, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Starts the checks when {@value ResyncOptions#MONGODB_URI_CONFIG} is set and {@value
     * ResyncOptions#REWRITE_CHECK_INTERVAL_MS_CONFIG} is not 0.
     *
     * @param registry where {@value TtlMetrics#RESYNCS_AUTOMATIC} is counted
     * @return the running checks, to be closed with the processor; empty when they are off
     */
    public static Optional<RewriteResync> start(TtlStreamsConfig config, MeterRegistry registry) {
        Optional<Duration> interval = config.rewriteCheckInterval();
        if (interval.isEmpty() || config.mongodbUri().isEmpty()) {
            LOG.info(
                    "No automatic resync after a collection is replaced or re-created ({}): set {} and {} for it",
                    interval.isEmpty()
                            ? ResyncOptions.REWRITE_CHECK_INTERVAL_MS_CONFIG + " is 0"
                            : ResyncOptions.MONGODB_URI_CONFIG + " is not set",
                    ResyncOptions.MONGODB_URI_CONFIG,
                    ResyncOptions.REWRITE_CHECK_INTERVAL_MS_CONFIG);
            return Optional.empty();
        }
        // The publisher first: if Kafka's producer refuses its settings, no MongoDB client is left open.
        KafkaResyncPublisher publisher = KafkaResyncPublisher.create(config);
        MongoClient client = Resync.mongoClient(config, "ttl-streams-rewrite-resync");
        LOG.info(
                "Collections of the rules checked for a replacement or re-creation every {} ms; each one found is"
                        + " resynced {} ms later",
                interval.get().toMillis(),
                config.rewriteResyncDelay().toMillis());
        return Optional.of(new RewriteResync(config, client, publisher, registry, Clock.systemUTC(), interval.get()));
    }

    private void check() {
        try {
            checkOnce();
        } catch (RuntimeException e) {
            // Whatever failed, the checks go on: a scheduled task that throws is never run again.
            LOG.warn("Rewrite check failed; the next one tries again", e);
        }
    }

    private void checkOnce() {
        Map<Namespace, BsonValue> present;
        try {
            present = collections();
        } catch (MongoException e) {
            LOG.warn("Could not list the rules' collections for a rewrite check; the next check tries again", e);
            return;
        }
        Instant now = clock.instant();
        for (Rewrite rewrite : identities.observe(present)) {
            // Seen again before its resync ran: one resync, after the latest rewrite.
            pending.remove(rewrite.namespace());
            pending.put(rewrite.namespace(), new Pending(rewrite, now.plus(config.rewriteResyncDelay())));
            LOG.debug(
                    "{} rewritten ({}): resync due in {}",
                    rewrite.namespace(),
                    rewrite.reason(),
                    config.rewriteResyncDelay());
        }
        checks.increment();
        for (Iterator<Pending> waiting = pending.values().iterator(); waiting.hasNext(); ) {
            Pending next = waiting.next();
            if (next.due().isAfter(clock.instant())) {
                continue;
            }
            try {
                resync(next.rewrite());
                waiting.remove();
            } catch (MongoException | KafkaException | IllegalArgumentException e) {
                LOG.warn(
                        "Automatic resync of {} failed; the next check tries again",
                        next.rewrite().namespace(),
                        e);
                return;
            }
        }
    }

    private void resync(Rewrite rewrite) {
        Namespace namespace = rewrite.namespace();
        long estimated = client.getDatabase(namespace.database())
                .getCollection(namespace.collection())
                .estimatedDocumentCount();
        if (estimated > config.rewriteResyncMaxDocuments()) {
            TtlMetrics.instanceCounter(registry, TtlMetrics.RESYNCS_AUTOMATIC, Map.of(TtlMetrics.REASON_TAG, TOO_LARGE))
                    .increment();
            LOG.warn(
                    "{} was {} ({}), but holds about {} documents, more than {} allows an automatic resync: run"
                            + " ttl-streams resync --namespace {} when MongoDB can afford the read",
                    namespace,
                    rewrite.reason().tag(),
                    rewrite.reason().why(),
                    estimated,
                    ResyncOptions.REWRITE_MAX_DOCUMENTS_CONFIG,
                    namespace);
            return;
        }
        ResyncReport report = resync.run(
                new ResyncSelection(Optional.of(namespace), Optional.empty()),
                Optional.of(sink),
                ResyncProgress.none());
        TtlMetrics.instanceCounter(
                        registry,
                        TtlMetrics.RESYNCS_AUTOMATIC,
                        Map.of(TtlMetrics.REASON_TAG, rewrite.reason().tag()))
                .increment();
        LOG.info(
                "Automatic resync of {}: {} (UUID {} -> {}), so the change stream may not have delivered its documents;"
                        + " {}",
                namespace,
                rewrite.reason().why(),
                rewrite.before() == null ? "none" : uuid(rewrite.before()),
                uuid(rewrite.after()),
                report.oneLine());
    }

    /** Each covered namespace that exists now (collections only, {@code system.*} left out), with its UUID. */
    private Map<Namespace, BsonValue> collections() {
        Set<String> databases = new LinkedHashSet<>();
        for (TtlRule rule : config.rules().rules()) {
            databases.add(rule.namespace().database());
        }
        Map<Namespace, BsonValue> present = new LinkedHashMap<>();
        for (String database : databases) {
            for (BsonDocument entry : Resync.collections(client, database)) {
                String name = entry.getString("name").getValue();
                if (name.startsWith("system.")) {
                    continue;
                }
                Namespace namespace = Namespace.of(database, name);
                if (config.rules().covering(namespace).isEmpty()) {
                    continue;
                }
                if (!entry.isDocument("info") || !entry.getDocument("info").containsKey("uuid")) {
                    if (!uuidMissingLogged) {
                        uuidMissingLogged = true;
                        LOG.warn(
                                "listCollections reports no UUID for {}: a replacement of it cannot be told from the"
                                        + " collection itself, and is not followed by an automatic resync",
                                namespace);
                    }
                    continue;
                }
                present.put(namespace, entry.getDocument("info").get("uuid"));
            }
        }
        return present;
    }

    private static String uuid(BsonValue value) {
        return value.isBinary() && value.asBinary().getData().length == 16
                ? value.asBinary().asUuid().toString()
                : value.toString();
    }

    /** Stops the checks, interrupting a resync under way, and closes the MongoDB client and producer. */
    @Override
    public void close() {
        ResyncSweep.stop(executor, LOG, "The automatic resync");
        sink.close();
        client.close();
    }
}
