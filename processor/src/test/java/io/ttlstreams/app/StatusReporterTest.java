package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.topology.TtlTopology;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatusReporterTest {

    /** Kafka Streams created, never started: no broker needed, and state, metrics and metadata answer. */
    private static KafkaStreams streams(Path stateDir) {
        TtlStreamsConfig config = new TtlStreamsConfig(Map.of(
                "ttl.rules",
                "s",
                "ttl.rule.s.namespace",
                "app.sessions",
                "ttl.rule.s.field",
                "expireAt",
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:1",
                StreamsConfig.STATE_DIR_CONFIG,
                stateDir.toString()));
        Properties props = TtlTopology.streamsProperties(config);
        return new KafkaStreams(TtlTopology.build(config), props);
    }

    @Test
    void shouldKeepReportingAfterALineFails(@TempDir Path stateDir) {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        AtomicInteger calls = new AtomicInteger();
        MeterRegistry registry = new SimpleMeterRegistry();
        TtlMetrics.instanceCounter(registry, TtlMetrics.PUNCTUATION_FAILURES, Map.of())
                .increment();
        try (KafkaStreams streams = streams(stateDir);
                StatusReporter status = new StatusReporter(
                        streams,
                        registry,
                        () -> 2,
                        new PrintStream(printed, true, StandardCharsets.UTF_8),
                        Clock.systemUTC(),
                        () -> {
                            if (calls.incrementAndGet() == 1) {
                                throw new IllegalStateException("the store moved away");
                            }
                            return OptionalLong.of(7);
                        })) {
            status.start(Duration.ofMillis(10));

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> printed.toString(StandardCharsets.UTF_8).contains("deleted=7"));
        }
        assertThat(calls.get()).isGreaterThan(1);
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .startsWith("status: state=CREATED active=- standby=- deletes-emitted=0 deleted=7 confirmed=0"
                        + " unconfirmed=0 dead-lettered=0 threads-replaced=2 punctuation-failures=1"
                        + " expiry-lag-ms p50=0 p99=0 confirmed-lag-ms p99=0");
    }

    @Test
    void shouldPrintAnUnchangedLineOnlyAfterTheRepeatIntervalWhenNothingChanged(@TempDir Path stateDir) {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000_000);
        Clock clock = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                return java.time.Instant.ofEpochMilli(now.get());
            }
        };
        AtomicInteger deleted = new AtomicInteger(1);
        try (KafkaStreams streams = streams(stateDir)) {
            StatusReporter status = new StatusReporter(
                    streams,
                    new SimpleMeterRegistry(),
                    () -> 0,
                    new PrintStream(printed, true, StandardCharsets.UTF_8),
                    clock,
                    () -> OptionalLong.of(deleted.get()));

            status.report();
            now.addAndGet(5_000);
            status.report();
            now.addAndGet(5_000);
            deleted.set(2);
            status.report();
            now.addAndGet(StatusReporter.REPEAT_UNCHANGED.toMillis());
            status.report();
        }
        assertThat(printed.toString(StandardCharsets.UTF_8).lines())
                .extracting(line -> line.replaceAll(".* deleted=(\\d+) .*", "deleted=$1"))
                .containsExactly("deleted=1", "deleted=2", "deleted=2");
    }

    @Test
    void shouldNameTheSinksDeadLettersByReasonWhenThereAreAny() {
        assertThat(StatusReporter.sinkDeadLetters(new ExpiryFigures.SinkDeadLetters(
                        495, new TreeMap<>(Map.of("signature", 492.0, "namespace", 3.0)))))
                .isEqualTo(" sink-dead-lettered=495 (namespace=3 signature=492)");
        assertThat(StatusReporter.sinkDeadLetters(new ExpiryFigures.SinkDeadLetters(0, new TreeMap<>())))
                .isEmpty();
    }

    @Test
    void shouldLeaveFailuresOutWhileThereAreNone(@TempDir Path stateDir) {
        MeterRegistry registry = new SimpleMeterRegistry();
        Counter deadLettered = TtlMetrics.forTask(registry, "0_0").counter(TtlMetrics.DEAD_LETTERED);
        deadLettered.increment();
        deadLettered.increment();
        deadLettered.increment();
        assertThat(statusLine(registry, stateDir))
                .isEqualTo("status: state=CREATED active=- standby=- deletes-emitted=0 confirmed=0 unconfirmed=0"
                        + " dead-lettered=3 expiry-lag-ms p50=0 p99=0 confirmed-lag-ms p99=0");
    }

    /** The status line of a topology not yet started, with the counters of {@code registry}. */
    private static String statusLine(MeterRegistry registry, Path stateDir) {
        try (KafkaStreams streams = streams(stateDir);
                StatusReporter status = new StatusReporter(
                        streams,
                        registry,
                        () -> 0,
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        Clock.systemUTC(),
                        OptionalLong::empty)) {
            return status.statusLine();
        }
    }

    @Test
    void shouldShowThePacedPunctuationsWhenTheOutagePacerHeldCommandsBack(@TempDir Path stateDir) {
        MeterRegistry registry = new SimpleMeterRegistry();
        Counter paced = TtlMetrics.forTask(registry, "0_0").counter(TtlMetrics.EMISSIONS_PACED);
        paced.increment();
        paced.increment();
        assertThat(statusLine(registry, stateDir))
                .isEqualTo("status: state=CREATED active=- standby=- deletes-emitted=0 emissions-paced=2"
                        + " confirmed=0 unconfirmed=0 dead-lettered=0 expiry-lag-ms p50=0 p99=0"
                        + " confirmed-lag-ms p99=0");
    }
}
