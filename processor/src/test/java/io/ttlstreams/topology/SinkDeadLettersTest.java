package io.ttlstreams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.SinkRefusal;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.secrets.LogCapture;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * The sink connector's dead letters reach the operator: counted by reason in the one metrics pipeline, and logged at
 * ERROR once per reason, not per record.
 */
class SinkDeadLettersTest {

    private static final String MESSAGE = "__connect.errors.exception.message";
    private static final String EXCEPTION = "__connect.errors.exception.class.name";

    private static TestRecord<byte[], byte[]> deadLetter(String message, String exceptionClass) {
        RecordHeaders headers = new RecordHeaders();
        if (message != null) {
            headers.add(MESSAGE, message.getBytes(StandardCharsets.UTF_8));
        }
        if (exceptionClass != null) {
            headers.add(EXCEPTION, exceptionClass.getBytes(StandardCharsets.UTF_8));
        }
        return new TestRecord<>(
                "{\"_id\": \"s1\"}".getBytes(StandardCharsets.UTF_8),
                "not even a command".getBytes(StandardCharsets.UTF_8),
                headers,
                TopologyFixture.START);
    }

    @Test
    void shouldCountTheSinksDeadLettersByReasonAndLogEachReasonOnceWhenTheyArrive() {
        try (TopologyFixture fixture = TopologyFixture.sessions();
                LogCapture log = LogCapture.start()) {
            TestInputTopic<byte[], byte[]> sinkDlq = fixture.driver.createInputTopic(
                    ConnectorConfigs.SINK_DLQ_TOPIC, new ByteArraySerializer(), new ByteArraySerializer());
            String unsigned = SinkRefusal.SIGNATURE.reason("unsigned: the record has no ttl.signature header");
            for (int i = 0; i < 492; i++) {
                sinkDlq.pipeInput(deadLetter(unsigned, "org.apache.kafka.connect.errors.DataException"));
            }
            sinkDlq.pipeInput(deadLetter(
                    SinkRefusal.NAMESPACE.reason("namespace prod.users is not in allowed.namespaces [app.sessions]"),
                    "org.apache.kafka.connect.errors.DataException"));
            sinkDlq.pipeInput(deadLetter(
                    "Delete command refused by the sink guard: unsigned: (a guard that wrote no label)",
                    "org.apache.kafka.connect.errors.DataException"));
            sinkDlq.pipeInput(deadLetter("Bulk write operation error", "com.mongodb.MongoBulkWriteException"));
            sinkDlq.pipeInput(deadLetter(null, null));

            assertThat(ExpiryFigures.of(fixture.metrics.registry())
                            .sinkDeadLetters()
                            .byReason())
                    .containsExactlyEntriesOf(new java.util.TreeMap<>(
                            Map.of("guard", 1.0, "mongodb", 1.0, "namespace", 1.0, "other", 1.0, "signature", 492.0)));
            assertThat(fixture.metrics.registry().scrape())
                    .contains("ttl_sink_dead_letters_total{reason=\"signature\",task=\"0_0\"} 492.0")
                    .contains("ttl_sink_dead_letters_total{reason=\"namespace\",task=\"0_0\"} 1.0")
                    .contains("ttl_sink_dead_letters_total{reason=\"stale\",task=\"0_0\"} 0.0");
            assertThat(log.text().lines().filter(line -> line.startsWith("ERROR")))
                    .hasSize(5)
                    .anySatisfy(line -> assertThat(line)
                            .contains("(signature, at 2026-01-01T00:00:00Z)")
                            .contains("unsigned: the record has no ttl.signature header")
                            .contains("ttl.command.signing.key is missing or differs")
                            .contains("ttl_sink_dead_letters_total{reason=\"signature\"}"))
                    .anySatisfy(line -> assertThat(line)
                            .contains("(other, at ")
                            .contains("no __connect.errors.exception.message header"));
            // The schedule's task never saw them: nothing was dead-lettered as a change event.
            assertThat(fixture.dlq.isEmpty()).isTrue();
        }
    }
}
