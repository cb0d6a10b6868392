package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.SinkRefusal;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.readback.DocumentReadBack;
import io.ttlstreams.readback.MapDocumentReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * The list of ttl-streams' metrics, as {@code GET /metrics} renders them in Prometheus text and as JMX names them
 * (MBean and attribute), with their values after one run of the topology that emits, confirms (by delete event and
 * by read-back), dead-letters a record and counts a sink dead letter. The Prometheus list is the one the code rendered
 * before the metrics moved to Micrometer (issue 45; the lag maxima's help lines aside): a change of how metrics are
 * recorded must not change what an operator's dashboards and alerts read. When a metric is added on purpose, the
 * failing test writes the new lists to {@code target/} to compare and copy.
 */
class MetricsListTest {

    private static final BsonString S1 = new BsonString("s1");
    private static final BsonString S2 = new BsonString("s2");

    @Test
    void shouldRenderTheSameMetricsToPrometheusAndJmxWhenTheTopologyHasRun() throws Exception {
        MapDocumentReader mongo = new MapDocumentReader();
        DocumentReadBack readBack = new DocumentReadBack(mongo, 100, 1_000);
        try (TopologyFixture fixture = ReadBackTest.fixture(readBack)) {
            run(fixture, readBack);

            List<String> differences = new java.util.ArrayList<>();
            differences.addAll(compare(
                    "prometheus-ttl.txt", prometheus(fixture.metrics.registry().scrape())));
            differences.addAll(compare("jmx-ttl.txt", jmx(fixture.mbeans)));
            assertThat(differences).isEmpty();
        }
    }

    @Test
    void shouldRemoveATasksMetricsFromBothExportsWhenItsTaskCloses() throws Exception {
        TopologyFixture fixture = TopologyFixture.sessions();
        try {
            assertThat(fixture.metrics.registry().scrape()).contains("task=\"0_0\"");
            assertThat(jmx(fixture.mbeans)).contains("ttl-id=0_0");

            // The driver closes its task as Kafka Streams closes one that moves away.
            fixture.driver.close();

            assertThat(prometheus(fixture.metrics.registry().scrape()))
                    .doesNotContain("task=")
                    .contains("ttl_punctuation_failures_total 0.0");
            assertThat(jmx(fixture.mbeans))
                    .doesNotContain("ttl-id=")
                    .contains("kafka.streams:name=punctuation-failures,type=stream-ttl-metrics Count = 0");
        } finally {
            fixture.metrics.close();
        }
    }

    private static void run(TopologyFixture fixture, DocumentReadBack readBack) {
        ChangeEvents events = new ChangeEvents("app.sessions", START);
        BsonDocument dueInOneSecond = new BsonDocument(
                "expireAt", new BsonDateTime(START.plusSeconds(1).toEpochMilli()));
        fixture.input("app.sessions").pipeInput(ChangeEvents.key(S1), events.insert(S1, dueInOneSecond));
        fixture.input("app.sessions").pipeInput(ChangeEvents.key(S2), events.insert(S2, dueInOneSecond));
        fixture.input("app.sessions").pipeInput(ChangeEvents.key(S1), "not a change event");
        fixture.wallClockAt(Duration.ofSeconds(1));
        fixture.input("app.sessions")
                .pipeInput(
                        ChangeEvents.key(S1), events.at(START.plusMillis(1_250)).delete(S1));
        // s2's delete event never comes: read back, it is gone (the reader has no such document).
        Duration overdue = Duration.ofSeconds(1).plus(ReadBackTest.CONFIRM_TIMEOUT);
        fixture.wallClockAt(overdue);
        assertThat(readBack.readQueued()).isEqualTo(1);
        fixture.wallClockAt(overdue.plusMillis(100));
        RecordHeaders headers = new RecordHeaders();
        headers.add(
                "__connect.errors.exception.message",
                SinkRefusal.SIGNATURE.reason("unsigned").getBytes(StandardCharsets.UTF_8));
        fixture.driver
                .createInputTopic(ConnectorConfigs.SINK_DLQ_TOPIC, new ByteArraySerializer(), new ByteArraySerializer())
                .pipeInput(new TestRecord<>(new byte[0], new byte[0], headers, START));
        assertThat(fixture.metric(TtlMetrics.CONFIRMED)).isEqualTo(2);
    }

    /** The ttl_ families of the scrape: their TYPE and HELP lines and samples, in the scrape's order. */
    private static String prometheus(String scrape) {
        StringBuilder out = new StringBuilder();
        scrape.lines()
                .filter(line ->
                        line.startsWith("ttl_") || line.startsWith("# TYPE ttl_") || line.startsWith("# HELP ttl_"))
                .forEach(line -> out.append(line).append('\n'));
        return out.toString();
    }

    /**
     * Every meter of ttl-streams as JMX shows it: MBean name and attribute, with the value of those that do not depend
     * on when or how fast the test ran (counts, maxima, units; not rates, means and reservoir percentiles).
     */
    private static String jmx(MBeanServer server) throws Exception {
        TreeMap<String, String> lines = new TreeMap<>();
        for (ObjectName mbean : server.queryNames(new ObjectName("kafka.streams:type=stream-ttl-metrics,*"), null)) {
            for (MBeanAttributeInfo attribute : server.getMBeanInfo(mbean).getAttributes()) {
                String name = attribute.getName();
                boolean stable = name.equals("Count") || name.equals("Max") || name.endsWith("Unit");
                lines.put(
                        mbean.getCanonicalName() + " " + name, stable ? " = " + server.getAttribute(mbean, name) : "");
            }
        }
        StringBuilder out = new StringBuilder();
        lines.forEach((key, value) -> out.append(key).append(value).append('\n'));
        return out.toString();
    }

    /** The lines of resource {@code resource} that {@code actual} lacks or adds; {@code actual} goes to target/. */
    private static List<String> compare(String resource, String actual) throws IOException {
        String expected;
        try (InputStream in = Objects.requireNonNull(
                MetricsListTest.class.getResourceAsStream(resource), "test resource " + resource)) {
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (expected.equals(actual)) {
            return List.of();
        }
        Files.writeString(Path.of("target", resource), actual);
        List<String> expectedLines = expected.lines().toList();
        List<String> actualLines = actual.lines().toList();
        List<String> differences = new java.util.ArrayList<>();
        expectedLines.stream()
                .filter(line -> !actualLines.contains(line))
                .forEach(line -> differences.add(resource + " lacks: " + line));
        actualLines.stream()
                .filter(line -> !expectedLines.contains(line))
                .forEach(line -> differences.add(resource + " adds: " + line));
        if (differences.isEmpty()) {
            differences.add(resource + ": the same lines in another order (rendered to target/" + resource + ")");
        }
        return differences;
    }
}
