package io.ttlstreams.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.ttlstreams.processor.ExpiryListener;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Prometheus meters of what the scheduler emits and what MongoDB confirms, per rule: {@code
 * ttl_deletes_emitted_total} and the expiry lag (command emitted minus deadline) as the histogram {@code
 * ttl_expiry_lag_seconds}; {@code ttl_deletes_confirmed_total} and the confirmed lag (the document's delete event minus
 * its deadline, what a user sees) as {@code ttl_confirmed_lag_seconds}; {@code ttl_deletes_unconfirmed_total}, the
 * documents given up on. The histograms' buckets reach a day, so that their quantiles still mean something after an
 * outage (Kafka Streams' own percentile sensor stops at 10 s).
 *
 * <p>Called on the stream threads once per delete command and per confirmation: a map lookup and lock-free
 * recordings.
 */
public final class ExpiryMetrics implements ExpiryListener {

    static final String DELETES_EMITTED = "ttl.deletes.emitted";
    static final String EXPIRY_LAG = "ttl.expiry.lag";
    static final String DELETES_CONFIRMED = "ttl.deletes.confirmed";
    static final String CONFIRMED_LAG = "ttl.confirmed.lag";
    static final String DELETES_UNCONFIRMED = "ttl.deletes.unconfirmed";

    /** Fine where the lag lives normally (tens to hundreds of ms), coarse where it lives during an outage. */
    static final Duration[] LAG_BUCKETS = {
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        Duration.ofMinutes(1),
        Duration.ofMinutes(5),
        Duration.ofMinutes(15),
        Duration.ofMinutes(30),
        Duration.ofHours(1),
        Duration.ofHours(2),
        Duration.ofHours(6),
        Duration.ofHours(12),
        Duration.ofDays(1)
    };

    /** One rule's meters. */
    private record RuleMeters(
            Counter emitted, Timer expiryLag, Counter confirmed, Timer confirmedLag, Counter unconfirmed) {}

    private final MeterRegistry registry;
    private final ConcurrentMap<String, RuleMeters> meters = new ConcurrentHashMap<>();

    /**
     * @param rules the configured rules, whose meters exist from the start (at zero), as Prometheus wants
     */
    public ExpiryMetrics(MeterRegistry registry, List<String> rules) {
        this.registry = registry;
        rules.forEach(this::meters);
    }

    @Override
    public void emitted(String rule, long lagMillis) {
        RuleMeters forRule = meters(rule);
        forRule.emitted().increment();
        // A negative lag would be an early delete; recorded as 0 it still counts, and the counter above agrees.
        forRule.expiryLag().record(Math.max(0, lagMillis), TimeUnit.MILLISECONDS);
    }

    @Override
    public void confirmed(String rule, long lagMillis) {
        RuleMeters forRule = meters(rule);
        forRule.confirmed().increment();
        // Negative when the document was deleted before its deadline by someone else: recorded as 0.
        forRule.confirmedLag().record(Math.max(0, lagMillis), TimeUnit.MILLISECONDS);
    }

    @Override
    public void unconfirmed(String rule) {
        meters(rule).unconfirmed().increment();
    }

    /** Delete commands emitted by this instance since it started, over all rules. */
    public double deletesEmitted() {
        return total(RuleMeters::emitted);
    }

    /** Deletes confirmed by the change stream, as seen by this instance since it started, over all rules. */
    public double deletesConfirmed() {
        return total(RuleMeters::confirmed);
    }

    /** Documents this instance gave up on since it started, over all rules. */
    public double deletesUnconfirmed() {
        return total(RuleMeters::unconfirmed);
    }

    private double total(Function<RuleMeters, Counter> counter) {
        return meters.values().stream()
                .mapToDouble(rule -> counter.apply(rule).count())
                .sum();
    }

    /** The lag over all rules, from the histogram's buckets. */
    public LagSummary lagSummary() {
        long count = 0;
        double max = 0;
        Map<Double, Double> cumulative = new TreeMap<>();
        for (RuleMeters rule : meters.values()) {
            HistogramSnapshot snapshot = rule.expiryLag().takeSnapshot();
            count += snapshot.count();
            max = Math.max(max, snapshot.max(TimeUnit.SECONDS));
            for (CountAtBucket bucket : snapshot.histogramCounts()) {
                cumulative.merge(bucket.bucket(TimeUnit.SECONDS), bucket.count(), Double::sum);
            }
        }
        return new LagSummary(count, quantile(cumulative, count, 0.5), quantile(cumulative, count, 0.99), max);
    }

    /**
     * The upper bound of the bucket holding quantile {@code q}, as Prometheus' {@code histogram_quantile} would
     * bound it; empty without recordings or when it lies beyond the last bucket.
     */
    private static OptionalDouble quantile(Map<Double, Double> cumulativeCounts, long count, double q) {
        if (count == 0) {
            return OptionalDouble.empty();
        }
        double rank = q * count;
        for (Map.Entry<Double, Double> bucket : cumulativeCounts.entrySet()) {
            if (bucket.getValue() >= rank) {
                return OptionalDouble.of(bucket.getKey());
            }
        }
        return OptionalDouble.empty();
    }

    private RuleMeters meters(String rule) {
        return meters.computeIfAbsent(
                rule,
                name -> new RuleMeters(
                        counter(DELETES_EMITTED, "Delete commands emitted (first attempts)", name),
                        histogram(EXPIRY_LAG, "Delete command emitted minus the document's deadline", name),
                        counter(DELETES_CONFIRMED, "Deletes the change stream confirmed", name),
                        histogram(CONFIRMED_LAG, "The document's delete event minus its deadline", name),
                        counter(
                                DELETES_UNCONFIRMED,
                                "Documents given up on: no delete event after the last attempt",
                                name)));
    }

    private Counter counter(String name, String description, String rule) {
        return Counter.builder(name).description(description).tag("rule", rule).register(registry);
    }

    private Timer histogram(String name, String description, String rule) {
        return Timer.builder(name)
                .description(description)
                .tag("rule", rule)
                .serviceLevelObjectives(LAG_BUCKETS)
                .register(registry);
    }

    /**
     * The expiry lag of this instance.
     *
     * @param count commands recorded
     * @param p50Seconds upper bound of the median's bucket
     * @param p99Seconds upper bound of the 99th percentile's bucket
     * @param maxSeconds the largest lag of the last few minutes (Micrometer's decaying maximum)
     */
    public record LagSummary(long count, OptionalDouble p50Seconds, OptionalDouble p99Seconds, double maxSeconds) {}
}
