package io.ttlstreams.health;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.util.NamedThreadFactory;
import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.event.SourceClock;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures how far the MongoDB primary's clock runs ahead of this processor's (negative: behind) and keeps the result
 * in a {@link SourceClock}, which the event-time window follows: a {@code hello} on the primary, whose {@code
 * localTime} is the server's clock, compared with the middle of the round trip (the best of {@value #SAMPLES}); and
 * the {@code $clusterTime} it reports, which after a fast primary stepped down stays ahead until the clocks catch up.
 * The larger of the two is the offset, as change events carry both times.
 *
 * <p>It runs on a thread of its own, so that a MongoDB that does not answer delays no other health check. Exported as
 * {@code ttl_mongodb_clock_offset_seconds}; an offset beyond {@value #DEGRADED_MS} ms either way makes the processor
 * degraded ({@link #problem}).
 */
public final class MongoClock implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MongoClock.class);

    static final String OFFSET_GAUGE = "ttl.mongodb.clock.offset";
    /** Past this, either way, the clocks need fixing: dates MongoDB writes ($currentDate) are that far off too. */
    static final long DEGRADED_MS = 5_000;

    private static final int SAMPLES = 3;
    private static final BsonDocument HELLO = new BsonDocument("hello", new BsonInt32(1));
    /** What servers before {@code hello} (MongoDB 4.4.2, some compatible services) answer instead, as drivers do. */
    private static final BsonDocument IS_MASTER = new BsonDocument("isMaster", new BsonInt32(1));
    /** MongoDB's CommandNotFound. */
    private static final int COMMAND_NOT_FOUND = 59;

    private final MongoClient client;
    private final Clock clock;
    private final SourceClock sourceClock;
    private final ScheduledExecutorService thread =
            Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("ttl-streams-mongodb-clock"));
    private volatile boolean failing;
    private volatile BsonDocument command = HELLO;

    /**
     * @param client a client of {@code ttl.mongodb.uri}; closed with this
     * @param sourceClock where the measurements go
     */
    public MongoClock(MongoClient client, Clock clock, SourceClock sourceClock, MeterRegistry registry) {
        this.client = client;
        this.clock = clock;
        this.sourceClock = sourceClock;
        Gauge.builder(
                        OFFSET_GAUGE,
                        () -> sourceClock.offsetMillis().isPresent()
                                ? sourceClock.offsetMillis().getAsLong() / 1000.0
                                : Double.NaN)
                .description("How far the MongoDB primary's clock (hello's localTime, or the cluster time it reports)"
                        + " runs ahead of this processor's; negative: behind; NaN before it was measured")
                .baseUnit("seconds")
                .register(registry);
    }

    /** Measures once: the offset of the sample with the shortest round trip. */
    void measure() {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int i = 0; i < SAMPLES; i++) {
            long sent = clock.millis();
            BsonDocument hello = handshake();
            long received = clock.millis();
            long middle = sent + (received - sent) / 2;
            OptionalLong sample = offsetOf(hello, middle);
            if (sample.isPresent() && received - sent < best) {
                best = received - sent;
                offset = sample.getAsLong();
            }
        }
        if (best != Long.MAX_VALUE) {
            sourceClock.measured(offset);
        }
    }

    private BsonDocument handshake() {
        try {
            return client.getDatabase("admin").runCommand(command, BsonDocument.class);
        } catch (MongoCommandException e) {
            if (e.getErrorCode() != COMMAND_NOT_FOUND || command == IS_MASTER) {
                throw e;
            }
            command = IS_MASTER;
            return client.getDatabase("admin").runCommand(command, BsonDocument.class);
        }
    }

    /** The offset one {@code hello} answered at {@code middle} shows: the larger of its two clocks' leads. */
    static OptionalLong offsetOf(BsonDocument hello, long middle) {
        OptionalLong offset = OptionalLong.empty();
        if (hello.isDateTime("localTime")) {
            offset = OptionalLong.of(hello.getDateTime("localTime").getValue() - middle);
        }
        if (hello.isDocument("$clusterTime")
                && hello.getDocument("$clusterTime").isTimestamp("clusterTime")) {
            long seconds = Integer.toUnsignedLong(hello.getDocument("$clusterTime")
                    .getTimestamp("clusterTime")
                    .getTime());
            // Whole seconds: its lead is at least this, and a lead below the wall clock's says nothing new.
            long lead = seconds * 1000 - middle;
            offset = OptionalLong.of(offset.isPresent() ? Math.max(offset.getAsLong(), lead) : lead);
        }
        return offset;
    }

    /**
     * Measures at once, waiting for it up to {@code wait} (so that the stream threads start with a measurement where
     * MongoDB answers), then every {@code interval}.
     */
    public MongoClock start(Duration interval, Duration wait) {
        try {
            thread.submit(this::measureLogged).get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn(
                    "MongoDB's clock not measured within {} ms; change events are judged without it until it is",
                    wait.toMillis());
        }
        thread.scheduleWithFixedDelay(
                this::measureLogged, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void measureLogged() {
        try {
            measure();
            if (failing) {
                LOG.info("MongoDB's clock measured again");
            }
            failing = false;
        } catch (MongoException e) {
            if (!failing) {
                LOG.warn("Cannot measure MongoDB's clock (the last measurement stays in use): {}", e.toString());
            }
            failing = true;
        }
    }

    /** Why the clocks need attention; empty when they agree within {@value #DEGRADED_MS} ms or are not measured. */
    public Optional<String> problem() {
        OptionalLong offset = sourceClock.offsetMillis();
        if (offset.isEmpty() || Math.abs(offset.getAsLong()) <= DEGRADED_MS) {
            return Optional.empty();
        }
        long millis = offset.getAsLong();
        return Optional.of(String.format(
                Locale.ROOT,
                "MongoDB's clock runs %.1f s %s this processor's, more than %d ms: change events are judged by the"
                        + " measured offset (%s is widened by it), but dates MongoDB writes ($currentDate, $$NOW) are"
                        + " as far off; fix the clocks (NTP)",
                Math.abs(millis) / 1000.0,
                millis > 0 ? "ahead of" : "behind",
                DEGRADED_MS,
                SourceOptions.EVENT_TIME_MAX_FUTURE_SKEW_MS_CONFIG));
    }

    /** Stops measuring and closes the client. */
    @Override
    public void close() {
        thread.shutdownNow();
        client.close();
    }
}
