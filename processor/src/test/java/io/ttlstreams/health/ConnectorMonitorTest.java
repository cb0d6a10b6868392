package io.ttlstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.connect.ConnectRestClient;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.FakeConnect;
import io.ttlstreams.connect.ManagedConnectors;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ConnectorMonitor} restarting failed units with a doubling pause, and {@link SinkOutage} telling the
 * scheduler whether the sink writes, against a Kafka Connect REST stand-in and a clock the test moves.
 */
class ConnectorMonitorTest {

    private static final String SINK = ConnectorConfigs.SINK_NAME;
    private static final String RUNNING = """
            {"name": "mongo-ttl-sink", "connector": {"state": "RUNNING", "worker_id": "w"},
             "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "w"}], "type": "sink"}""";
    private static final String FAILED = """
            {"name": "mongo-ttl-sink", "connector": {"state": "RUNNING", "worker_id": "w"},
             "tasks": [{"id": 0, "state": "FAILED", "worker_id": "w",
                        "trace": "org.apache.kafka.connect.errors.DataException: non Data Error, fail the connector.\\n\
            Caused by: com.mongodb.MongoNotPrimaryException: Command failed with error 10107 (NotWritablePrimary)"}],
             "type": "sink"}""";

    private final AtomicLong nanos = new AtomicLong();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final SinkOutage outage = new SinkOutage(Duration.ofSeconds(30), nanos::get);
    private FakeConnect connect;
    private ConnectorMonitor monitor;

    @BeforeEach
    void start() throws Exception {
        connect = FakeConnect.start().answerStatus(SINK, 200, RUNNING);
        monitor = new ConnectorMonitor(
                new ManagedConnectors(new ConnectRestClient(connect.url()), List.of(SINK)),
                registry,
                outage,
                nanos::get);
    }

    @AfterEach
    void stop() {
        connect.close();
    }

    private void checkAt(long seconds) throws InterruptedException {
        nanos.set(TimeUnit.SECONDS.toNanos(seconds));
        monitor.check();
    }

    private long restarts() {
        return connect.requests().stream()
                .filter(request ->
                        request.method().equals("POST") && request.path().equals("/connectors/" + SINK + "/restart"))
                .count();
    }

    @Test
    void shouldRestartAFailedSinkTaskAtOnceThenWithADoublingPauseWhileItKeepsFailing() throws Exception {
        checkAt(0);
        assertThat(restarts()).as("nothing to restart while it runs").isZero();

        connect.answerStatus(SINK, 200, FAILED);
        checkAt(10);
        assertThat(restarts()).as("at once").isEqualTo(1);
        checkAt(10);
        assertThat(restarts()).as("not before the first pause (1 s) is over").isEqualTo(1);
        checkAt(11);
        assertThat(restarts()).isEqualTo(2);
        checkAt(12);
        assertThat(restarts()).as("the second pause is 2 s").isEqualTo(2);
        checkAt(13);
        assertThat(restarts()).isEqualTo(3);
        assertThat(registry.get(ConnectorMonitor.RESTARTS_GAUGE).gauge().value())
                .isEqualTo(3);
    }

    @Test
    void shouldStartTheRestartPausesAgainAfterTheConnectorRanThroughAWholePause() throws Exception {
        connect.answerStatus(SINK, 200, FAILED);
        checkAt(0);
        checkAt(1);
        checkAt(3);
        assertThat(restarts()).isEqualTo(3);

        connect.answerStatus(SINK, 200, RUNNING);
        checkAt(100);
        assertThat(registry.get(ConnectorMonitor.RESTARTS_GAUGE).gauge().value())
                .as("ran through the whole pause")
                .isZero();
        connect.answerStatus(SINK, 200, FAILED);
        checkAt(101);
        checkAt(102);
        assertThat(restarts()).as("at once, then after 1 s again").isEqualTo(5);
    }

    @Test
    void shouldCountTheSinkAsNotWritingFromItsFailureUntilItRanForTheRecoveryTime() throws Exception {
        checkAt(0);
        assertThat(outage.writing()).isTrue();

        connect.answerStatus(SINK, 200, FAILED);
        checkAt(10);
        assertThat(outage.writing()).isFalse();

        connect.answerStatus(SINK, 200, RUNNING);
        checkAt(20);
        assertThat(outage.writing()).as("running for 10 s of the 30 s").isFalse();
        checkAt(39);
        assertThat(outage.writing()).isFalse();
        checkAt(40);
        assertThat(outage.writing()).isTrue();
    }

    @Test
    void shouldLeaveTheSinkWritingWhenAnotherConnectorFails() throws Exception {
        String source = "mongo-source-app";
        connect.answerStatus(source, 200, FAILED.replace(SINK, source));
        ConnectorMonitor sources = new ConnectorMonitor(
                new ManagedConnectors(new ConnectRestClient(connect.url()), List.of(source)),
                registry,
                outage,
                nanos::get);
        sources.check();

        assertThat(outage.writing()).isTrue();
        assertThat(connect.requests())
                .as("the failed source is restarted too")
                .anySatisfy(request -> assertThat(request.path()).isEqualTo("/connectors/" + source + "/restart"));
    }
}
