package io.ttlstreams.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ConnectorStatusTest {

    /** What Connect answers for a source task that stopped on a resume token gone from the oplog (abridged). */
    static final String FAILED_TASK = """
            {"name": "mongo-source-app", "connector": {"state": "RUNNING", "worker_id": "connect:8083"},
             "tasks": [{"id": 0, "state": "FAILED", "worker_id": "connect:8083",
                        "trace": "org.apache.kafka.connect.errors.ConnectException: Unexpected error\\n\\tat \
            com.mongodb.kafka.connect.source.StartedMongoSourceTask.poll(StartedMongoSourceTask.java:212)\\n\
            Caused by: com.mongodb.MongoCommandException: Command failed with error 286 \
            (ChangeStreamHistoryLost): 'Resume of change stream was not possible'\\n\\tat \
            com.mongodb.internal.connection.ProtocolHelper.getCommandFailureException(ProtocolHelper.java:205)\\n"}],
             "type": "source"}""";

    @Test
    void shouldRunOnlyWhenTheConnectorAndEveryTaskRun() {
        ConnectorStatus running = ConnectorStatus.parse("""
                {"name": "sink", "connector": {"state": "RUNNING", "worker_id": "w"},
                 "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "w"}, {"id": 1, "state": "RUNNING"}],
                 "type": "sink"}""");

        assertThat(running.running()).isTrue();
        assertThat(running.problems()).isEmpty();
        assertThat(running.failures()).isZero();
        assertThat(running.tasks()).hasSize(2);
    }

    @Test
    void shouldRedactAPasswordThatATraceQuotes() {
        ConnectorStatus status = ConnectorStatus.parse("""
                {"name": "mongo-source-app", "connector": {"state": "FAILED", "worker_id": "w",
                 "trace": "org.apache.kafka.connect.errors.ConnectException: cannot connect to\
                 mongodb://app:m0ngo-Secret@mongo:27017/?replicaSet=rs0"},
                 "tasks": [], "type": "source"}""");

        assertThat(status.problems().get(0))
                .contains("mongodb://***@mongo:27017")
                .doesNotContain("m0ngo-Secret");
    }

    @Test
    void shouldReportAFailedTaskWithTheRootCauseOfItsTrace() {
        ConnectorStatus status = ConnectorStatus.parse(FAILED_TASK);

        assertThat(status.running()).isFalse();
        assertThat(status.failures()).isEqualTo(1);
        assertThat(status.problems())
                .containsExactly("connector mongo-source-app task 0 is FAILED:"
                        + " org.apache.kafka.connect.errors.ConnectException: Unexpected error (caused by"
                        + " com.mongodb.MongoCommandException: Command failed with error 286"
                        + " (ChangeStreamHistoryLost): 'Resume of change stream was not possible')");
    }

    @Test
    void shouldNotRunWhenPausedOrWithoutTasks() {
        ConnectorStatus paused = ConnectorStatus.parse("""
                {"name": "src", "connector": {"state": "PAUSED"}, "tasks": [{"id": 0, "state": "PAUSED"}]}""");
        ConnectorStatus taskless = ConnectorStatus.parse("""
                {"name": "src", "connector": {"state": "RUNNING"}, "tasks": []}""");

        assertThat(paused.running()).isFalse();
        assertThat(paused.failures()).isZero();
        assertThat(paused.problems()).containsExactly("connector src is PAUSED", "connector src task 0 is PAUSED");
        assertThat(taskless.running()).isFalse();
        assertThat(taskless.problems()).containsExactly("connector src has no tasks");
    }

    @Test
    void shouldCountAFailedConnectorAsAFailure() {
        ConnectorStatus status = ConnectorStatus.parse("""
                {"name": "src", "connector": {"state": "FAILED", "trace": "java.lang.IllegalStateException: x"},
                 "tasks": []}""");

        assertThat(status.failures()).isEqualTo(1);
        assertThat(status.problems()).first().isEqualTo("connector src is FAILED: java.lang.IllegalStateException: x");
    }

    @Test
    void shouldRefuseSomethingElse() {
        assertThatThrownBy(() -> ConnectorStatus.parse("{\"error_code\": 500}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Not a Kafka Connect connector status");
    }
}
